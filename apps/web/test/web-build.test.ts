import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';

/**
 * Issue 13, defect 12: `npm start` after a failed web build. scripts/ensure-ready.mjs runs in a
 * scratch project whose `build:web` writes the app's JavaScript, then fails before its CSS unless
 * told to succeed; nothing half-built may be served or counted as up to date. The same script
 * rebuilds the server bundle that `npm start` runs when it is missing, older than the server's
 * sources or made in another checkout.
 */
const ENSURE_READY = fileURLToPath(new URL('../../../scripts/ensure-ready.mjs', import.meta.url));
const FAKE_BUILD = `
const at = process.argv.indexOf('--outDir');
const outDir = at > 0 ? process.argv[at + 1] : 'apps/web/dist';
const { mkdirSync, writeFileSync } = require('node:fs');
mkdirSync(outDir + '/assets', { recursive: true });
writeFileSync(outDir + '/index.html', '<script src="/assets/app.js"></script><link rel="stylesheet" href="/assets/app.css">');
writeFileSync(outDir + '/assets/app.js', 'console.log(' + JSON.stringify(process.env.BUILD_LABEL) + ')');
if (process.env.BUILD_FAILS) { console.error('build failed half-way'); process.exit(1); }
writeFileSync(outDir + '/assets/app.css', 'body { color: black }');
`;
/** Stands in for scripts/build-server.mjs: a bundle naming this checkout, and a line in a log per build. */
const FAKE_SERVER_BUILD = `
const { appendFileSync, mkdirSync, writeFileSync } = require('node:fs');
mkdirSync('apps/server/dist', { recursive: true });
writeFileSync('apps/server/dist/main.mjs', '// Kinetrace server bundle of ' + process.cwd() + '/\\n');
appendFileSync('server-builds.log', 'built\\n');
`;

const project = mkdtempSync(join(tmpdir(), 'kinetrace-web-build-'));
afterAll(() => rmSync(project, { recursive: true, force: true }));

function scratchProject() {
  mkdirSync(join(project, 'scripts'), { recursive: true });
  mkdirSync(join(project, 'apps/web/src'), { recursive: true });
  mkdirSync(join(project, 'node_modules'), { recursive: true });
  copyFileSync(ENSURE_READY, join(project, 'scripts/ensure-ready.mjs'));
  writeFileSync(join(project, 'build.cjs'), FAKE_BUILD);
  writeFileSync(join(project, 'build-server.cjs'), FAKE_SERVER_BUILD);
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({
      name: 'scratch',
      private: true,
      scripts: { 'build:web': 'node build.cjs', 'build:server': 'node build-server.cjs' },
    }),
  );
  // Dependencies installed after the lock file: ensure-ready leaves them alone.
  writeFileSync(join(project, 'package-lock.json'), '{}');
  writeFileSync(join(project, 'node_modules/.package-lock.json'), '{}');
  utimesSync(join(project, 'package-lock.json'), new Date(2020, 0, 1), new Date(2020, 0, 1));
  editSource();
}
/** A web source edited after any build so far (newer than the build's completion marker, not in the future). */
function editSource() {
  const path = join(project, 'apps/web/src/main.ts');
  writeFileSync(path, `export const edited = ${Date.now()};`);
  const marker = dist(BUILD_COMPLETE_MARKER);
  const edited = new Date(existsSync(marker) ? statSync(marker).mtimeMs + 1_000 : Date.now());
  utimesSync(path, edited, edited);
}
const ensureReady = (env: Record<string, string>) =>
  spawnSync(process.execPath, [join(project, 'scripts/ensure-ready.mjs')], {
    cwd: project,
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
/** The file ensure-ready.mjs writes last into a complete build. */
const BUILD_COMPLETE_MARKER = '.build-complete';
const dist = (path = '') => join(project, 'apps/web/dist', path);
const leftovers = () => readdirSync(join(project, 'apps/web')).filter((name) => name !== 'src' && name !== 'dist');

it('builds the web app aside and swaps it in only when the build succeeded; a half build is never up to date', () => {
  scratchProject();

  // A first build that fails half-way leaves no app at all, and the next start builds again.
  expect(ensureReady({ BUILD_FAILS: '1', BUILD_LABEL: 'first' }).status).not.toBe(0);
  expect(existsSync(dist())).toBe(false);
  expect(ensureReady({ BUILD_FAILS: '1', BUILD_LABEL: 'first' }).status).not.toBe(0);
  expect(leftovers()).toEqual([]);

  const built = ensureReady({ BUILD_LABEL: 'complete' });
  expect(built.status).toBe(0);
  expect(existsSync(dist('assets/app.css'))).toBe(true);
  // Up to date now: a start that would fail to build does not build.
  expect(ensureReady({ BUILD_FAILS: '1', BUILD_LABEL: 'not needed' }).status).toBe(0);

  // After an edit, a failed rebuild keeps the previous complete app in place, and is retried.
  editSource();
  expect(ensureReady({ BUILD_FAILS: '1', BUILD_LABEL: 'broken' }).status).not.toBe(0);
  expect(existsSync(dist('assets/app.css'))).toBe(true);
  expect(readFileSync(dist('assets/app.js'), 'utf8')).toContain('complete');
  expect(ensureReady({ BUILD_FAILS: '1', BUILD_LABEL: 'broken' }).status).not.toBe(0);
  expect(leftovers()).toEqual([]);
});

it('rebuilds the server bundle only when it is missing, older than a server source or made in another checkout', () => {
  scratchProject();
  const serverBuilds = () => readFileSync(join(project, 'server-builds.log'), 'utf8').split('\n').length - 1;
  const bundle = join(project, 'apps/server/dist/main.mjs');
  rmSync(bundle, { force: true });
  rmSync(join(project, 'server-builds.log'), { force: true });

  expect(ensureReady({}).status).toBe(0);
  expect(serverBuilds()).toBe(1);
  expect(ensureReady({}).status).toBe(0);
  expect(serverBuilds()).toBe(1);

  // A server source edited after the bundle.
  mkdirSync(join(project, 'apps/server/src'), { recursive: true });
  const source = join(project, 'apps/server/src/main.ts');
  writeFileSync(source, 'export {};');
  const edited = new Date(statSync(bundle).mtimeMs + 1_000);
  utimesSync(source, edited, edited);
  expect(ensureReady({}).status).toBe(0);
  expect(serverBuilds()).toBe(2);

  // A bundle of another checkout names module paths that are not this one's.
  writeFileSync(bundle, '// Kinetrace server bundle of /elsewhere/kinetrace/\n');
  expect(ensureReady({}).status).toBe(0);
  expect(serverBuilds()).toBe(3);
  expect(readFileSync(bundle, 'utf8')).toContain(project);
});
