#!/usr/bin/env node
// `npm run build:server`: the server as `npm start` runs it. esbuild bundles apps/server/src/main.ts with
// the workspace packages into one JavaScript file and leaves the dependencies to node_modules. Node then
// runs compiled JavaScript instead of compiling TypeScript through tsx's loader thread, which held about
// 65 MB of the idle server (issue 13: the idle server on its embedded defaults under 300 MB). npm start
// runs it with --v8-pool-size=1: each of V8's helper threads (four by default) kept a memory arena of its
// own, about 35 MB in all at idle, for garbage collections of a heap that is only tens of MB.
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const outfile = join(root, 'apps/server/dist/main.mjs');

const result = await build({
  entryPoints: [join(root, 'apps/server/src/main.ts')],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: 'linked',
  sourcesContent: false,
  write: false,
  logLevel: 'warning',
  // The first line names the checkout the bundle was made from: ensure-ready.mjs rebuilds it elsewhere.
  banner: { js: `// Kinetrace server bundle of ${root}` },
  plugins: [
    {
      name: 'kinetrace-sources',
      setup(server) {
        // Dependencies stay in node_modules (native modules, WebAssembly and data files are found there).
        server.onResolve({ filter: /^[^./]/ }, (resolved) =>
          resolved.path.startsWith('@kinetrace/') ? undefined : { external: true },
        );
        // Each module keeps its own location: files found relative to a module (the migrations, the web
        // build, worker entries) are where the sources have them.
        server.onLoad({ filter: /\.ts$/ }, async ({ path }) => ({
          contents: (await readFile(path, 'utf8')).replaceAll(
            'import.meta.url',
            JSON.stringify(pathToFileURL(path).href),
          ),
          loader: 'ts',
        }));
      },
    },
  ],
});

// Written aside and renamed, the bundle itself last, so that a start never runs a half-written build.
mkdirSync(dirname(outfile), { recursive: true });
const bundleLast = result.outputFiles.toSorted((a, b) => Number(a.path === outfile) - Number(b.path === outfile));
for (const file of bundleLast) {
  const staging = join(dirname(file.path), `.${basename(file.path)}.${process.pid}`);
  writeFileSync(staging, file.contents);
  renameSync(staging, file.path);
}
