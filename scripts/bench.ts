/**
 * `npm run bench`: runs every benchmark file (`packages/*\/bench/*.bench.ts`, `apps/*\/bench/*.bench.ts`)
 * one after another, each in its own process so that its peak memory is its own, and prints
 * what each one reports. Pass a substring to run only the matching benchmarks.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const filter = process.argv[2] ?? '';

const benchFiles = ['packages', 'apps']
  .flatMap((group) => readdirSync(join(root, group)).map((name) => join(root, group, name, 'bench')))
  .filter((dir) => existsSync(dir))
  .flatMap((dir) =>
    readdirSync(dir)
      .filter((file) => file.endsWith('.bench.ts'))
      .map((file) => join(dir, file)),
  )
  .filter((file) => file.includes(filter))
  .sort();

let failed = 0;
for (const file of benchFiles) {
  console.log(`\n=== ${relative(root, file)} ===`);
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--expose-gc', file], { stdio: 'inherit', cwd: root });
  if (run.status !== 0) failed++;
}
console.log(`\n${benchFiles.length - failed} benchmarks ran, ${failed} failed`);
process.exitCode = failed > 0 ? 1 : 0;
