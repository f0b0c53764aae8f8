import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { extname, join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { Plugin } from 'vite';

/** Files that shrink when compressed: text and the bone meshes (STL). Fonts and pictures are compressed already. */
const COMPRESSIBLE = new Set(['.js', '.css', '.svg', '.json', '.stl']);
/** Below this a compressed copy saves less than the headers it costs. */
const MIN_BYTES = 1024;

/**
 * Brotli's quality 10, not its highest (11): on the app's 1.2 MB entry script 11 takes twice as long (12 s
 * against 6.4 s on a busy build machine) for 2 % fewer bytes (306 KB against 312 KB); 9 is three times faster
 * but 6 % larger (333 KB).
 */
const BROTLI_QUALITY = 10;

const compressors = {
  br: (data: Buffer) =>
    promisify(brotliCompress)(data, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
        [constants.BROTLI_PARAM_SIZE_HINT]: data.length,
      },
    }),
  gz: (data: Buffer) => promisify(gzip)(data, { level: constants.Z_BEST_COMPRESSION }),
};

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}

/**
 * Writes a Brotli (`.br`) and a gzip (`.gz`) copy beside each compressible file of the build, which the server
 * sends to browsers that accept them (@fastify/static's preCompressed): compressed once at the highest levels
 * here, never per request. A copy not smaller than its file is not kept. The page (index.html) is not among them:
 * the server writes a nonce into it per answer.
 */
export function precompress(): Plugin {
  let outDir = '';
  return {
    name: 'kinetrace-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = resolve(config.root, config.build.outDir);
    },
    // After the bundle is written; the public folder's files were copied before it.
    async closeBundle() {
      // Not the build's own notes (.vite/manifest.json), which the server does not serve.
      const files = (await filesUnder(outDir)).filter(
        (file) => COMPRESSIBLE.has(extname(file)) && !relative(outDir, file).startsWith('.'),
      );
      await Promise.all(
        files.map(async (file) => {
          if ((await stat(file)).size < MIN_BYTES) return;
          const data = await readFile(file);
          for (const [extension, compress] of Object.entries(compressors)) {
            const compressed = await compress(data);
            if (compressed.length < data.length) await writeFile(`${file}.${extension}`, compressed);
          }
        }),
      );
    },
  };
}
