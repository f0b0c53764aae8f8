#!/usr/bin/env node
// Run before `npm start`, `npm test` and `npm run bench`, so that a fresh clone needs no other step:
// installs the dependencies when they are missing or older than the lock file, and (re)builds the
// web app and the server bundle when their sources are newer than the last complete build.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 20 || (major === 20 && minor < 19)) {
  console.error(`Kinetrace needs Node.js 20.19 or newer; this is ${process.version}.`);
  process.exit(1);
}

function run(command, args) {
  console.log(`> ${command} ${args.join(' ')}`);
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

function newestMtime(path) {
  if (!existsSync(path)) return 0;
  const info = statSync(path);
  if (!info.isDirectory()) return info.mtimeMs;
  return Math.max(info.mtimeMs, ...readdirSync(path).map((name) => newestMtime(join(path, name))));
}

const installed = join(root, 'node_modules', '.package-lock.json');
if (!existsSync(installed) || statSync(installed).mtimeMs < statSync(join(root, 'package-lock.json')).mtimeMs) {
  run('npm', ['ci', '--no-audit', '--no-fund']);
}

const webDir = join(root, 'apps', 'web');
const webDist = join(webDir, 'dist');
/** Written last into a build that succeeded: a dist without it (a build stopped half-way) is not up to date. */
const BUILD_COMPLETE = '.build-complete';

/**
 * Builds the web app into a folder of its own and puts it in place of apps/web/dist only when the
 * build succeeded, so a failed build never leaves a half-written app (its JavaScript but not its
 * CSS) to be served; the previous complete build stays.
 */
function buildWebApp() {
  const staging = join(webDir, `dist.building-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  console.log('> npm run build:web');
  const result = spawnSync('npm', ['run', 'build:web', '--', '--outDir', staging, '--emptyOutDir'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (result.status !== 0) {
    rmSync(staging, { recursive: true, force: true });
    console.error(`The web app did not build${existsSync(webDist) ? '; the previous build is left as it was' : ''}.`);
    process.exit(result.status ?? 1);
  }
  writeFileSync(join(staging, BUILD_COMPLETE), `${new Date().toISOString()}\n`);
  const previous = join(webDir, `dist.previous-${process.pid}`);
  if (existsSync(webDist)) renameSync(webDist, previous);
  renameSync(staging, webDist);
  rmSync(previous, { recursive: true, force: true });
}

const webSources = [
  'apps/web/src',
  'apps/web/public',
  'apps/web/index.html',
  'apps/web/vite.config.ts',
  'scripts/precompress-plugin.ts',
  'packages/contracts/src',
];
const newestSource = Math.max(...webSources.map((path) => newestMtime(join(root, path))));
const buildMarker = join(webDist, BUILD_COMPLETE);
if (!existsSync(buildMarker) || statSync(buildMarker).mtimeMs < newestSource) buildWebApp();

/** The server's code and the workspace packages it bundles (scripts/build-server.mjs). */
const serverSources = [
  'apps/server/src',
  ...(existsSync(join(root, 'packages'))
    ? readdirSync(join(root, 'packages')).map((name) => `packages/${name}/src`)
    : []),
  'scripts/build-server.mjs',
];
const serverBundle = join(root, 'apps/server/dist/main.mjs');
/** A bundle names the checkout it was built from on its first line: the module paths inside it are that checkout's. */
const bundleIsOfThisCheckout = () => readFileSync(serverBundle, 'utf8').split('\n', 1)[0].endsWith(` of ${root}`);
const newestServerSource = Math.max(...serverSources.map((path) => newestMtime(join(root, path))));
if (!existsSync(serverBundle) || statSync(serverBundle).mtimeMs < newestServerSource || !bundleIsOfThisCheckout()) {
  run('npm', ['run', 'build:server']);
}
