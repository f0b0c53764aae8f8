#!/usr/bin/env node
// Run before `npm start`, `npm test` and `npm run bench`, so that a fresh clone needs no other step:
// installs the dependencies when they are missing or older than the lock file, and (re)builds the
// web app when its sources are newer than the last build.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
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

const webBuild = join(root, 'apps', 'web', 'dist', 'index.html');
const webSources = ['apps/web/src', 'apps/web/public', 'apps/web/index.html', 'apps/web/vite.config.ts', 'packages/contracts/src'];
const newestSource = Math.max(...webSources.map((path) => newestMtime(join(root, path))));
if (!existsSync(webBuild) || statSync(webBuild).mtimeMs < newestSource) {
  run('npm', ['run', 'build:web']);
}
