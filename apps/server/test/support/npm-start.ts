import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const packageJson = fileURLToPath(new URL('../../../../package.json', import.meta.url));

/**
 * The arguments `npm start` gives node for the server, after ensure-ready.mjs has built it, read from the
 * root package.json: tests and benchmarks start the server exactly as a user does.
 */
export function npmStartNodeArgs(): string[] {
  const start = (JSON.parse(readFileSync(packageJson, 'utf8')) as { scripts: { start: string } }).scripts.start;
  const [command, ...args] = start.split('&&').at(-1)!.trim().split(/\s+/);
  if (command !== 'node') throw new Error(`npm start's last command is not node: ${start}`);
  return args;
}
