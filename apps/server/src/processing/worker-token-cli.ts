import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { openDatabase } from '@kinetrace/db';
import { loadConfig } from '../config.ts';
import { DataDirInUseError, lockDataDir } from '../data-dir-lock.ts';
import { hashRandomToken, newRandomToken } from '../services/secrets.ts';
import type { WorkerTokensRepository } from './worker-tokens-repository.ts';
import { createWorkerTokensRepository } from './worker-tokens-repository.ts';

const USAGE = `Usage: npm run worker-token -- <command>
  create --name NAME   make a token for a worker machine (printed once, stored hashed)
  list                 every token: last contact, the trials its worker processes now, revoked or not
  revoke --name NAME   refuse the token from now on, also to a worker already running`;

/** Worker tokens start so, to be told apart from users' tokens at a glance (in a log, a support request). */
const WORKER_TOKEN_PREFIX = 'kwt_';

/** What the command printed and how it ended. */
export interface CommandResult {
  exitCode: number;
  output: string;
}

/**
 * `npm run worker-token -- create|list|revoke` (issue 23): the operator's management of remote workers'
 * tokens, on a server machine with the server's own configuration.
 */
export async function workerTokenCommand(
  argv: string[],
  tokens: WorkerTokensRepository,
  publicUrl: string,
  now: () => Date = () => new Date(),
): Promise<CommandResult> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: { name: { type: 'string' } }, allowPositionals: true });
  } catch (error) {
    return { exitCode: 2, output: `${(error as Error).message}\n${USAGE}` };
  }
  const [command, ...rest] = parsed.positionals;
  const name = parsed.values.name?.trim();
  if (rest.length > 0) return { exitCode: 2, output: USAGE };
  if ((command === 'create' || command === 'revoke') && !name)
    return { exitCode: 2, output: `${command} needs --name NAME\n${USAGE}` };
  if (name !== undefined && (name.length > 100 || !/^[\w.@-]+$/.test(name)))
    return { exitCode: 2, output: 'A worker name has up to 100 letters, digits, dots, dashes, underscores or @.' };

  if (command === 'create') {
    const token = `${WORKER_TOKEN_PREFIX}${newRandomToken()}`;
    if (!(await tokens.create(name!, hashRandomToken(token))))
      return {
        exitCode: 1,
        output: `A live worker token is already named ${name}: revoke it first, or pick another name.`,
      };
    return {
      exitCode: 0,
      output: [
        `Worker token for ${name} (shown this once; the server keeps only its hash):`,
        token,
        '',
        'On the worker machine, in a clone of Kinetrace after `npm ci`:',
        `  npx kinetrace-worker --server ${publicUrl} --token ${token}`,
      ].join('\n'),
    };
  }
  if (command === 'revoke') {
    if (!(await tokens.revoke(name!, now()))) return { exitCode: 1, output: `No live worker token is named ${name}.` };
    return {
      exitCode: 0,
      output: `Revoked ${name}: the worker API refuses it from now on; a job it held goes back to the queue when its lease expires.`,
    };
  }
  if (command === 'list') {
    const listed = await tokens.list();
    if (listed.length === 0)
      return { exitCode: 0, output: 'No worker tokens yet: npm run worker-token -- create --name NAME' };
    const time = (date: Date | null) => (date ? date.toISOString().replace(/\.\d+Z$/, 'Z') : 'never');
    const rows = listed.map((token) => [
      token.name,
      token.revokedAt ? `revoked ${time(token.revokedAt)}` : 'live',
      time(token.lastSeenAt),
      token.trialIds.length > 0 ? token.trialIds.map((id) => `trial ${id}`).join(', ') : '-',
    ]);
    const header = ['NAME', 'STATE', 'LAST CONTACT', 'CURRENT JOB'];
    const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column].length)));
    const line = (cells: string[]) =>
      cells
        .map((cell, column) => cell.padEnd(widths[column]))
        .join('  ')
        .trimEnd();
    return { exitCode: 0, output: [line(header), ...rows.map(line)].join('\n') };
  }
  return { exitCode: 2, output: USAGE };
}

/** The command on the server's configuration (DATABASE_URL, else the embedded database of DATA_DIR). */
async function main(): Promise<void> {
  const config = loadConfig(process.env);
  // The embedded database has one process at a time: a running server holds it.
  const release = config.databaseUrl
    ? async () => undefined
    : await lockDataDir(config.dataDir, () => undefined).catch((error: unknown) => {
        console.error(
          error instanceof DataDirInUseError
            ? `${error.message}\nWith the embedded database, stop the server to manage worker tokens (or use PostgreSQL).`
            : String(error),
        );
        process.exit(1);
      });
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    const result = await workerTokenCommand(
      process.argv.slice(2),
      createWorkerTokensRepository(database.db),
      config.publicUrl,
    );
    (result.exitCode === 0 ? console.log : console.error)(result.output);
    process.exitCode = result.exitCode;
  } finally {
    await database.close();
    await release();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
