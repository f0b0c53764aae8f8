import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));

/** One `kinetrace-worker` process. */
export interface WorkerProcess {
  child: ChildProcess;
  /** Its exit code (null when ended by a signal), once it has exited. */
  exited: Promise<number | null>;
  /** Everything it printed so far (standard output and error). */
  output(): string;
}

/** `npx kinetrace-worker` as an operator starts it: a process of its own, its output kept. */
export function startWorker(server: string, token: string, options: { poseThreads?: number } = {}): WorkerProcess {
  const child = spawn(
    process.execPath,
    [
      'apps/worker/bin/kinetrace-worker.mjs',
      '--server',
      server,
      '--token',
      token,
      ...(options.poseThreads ? ['--pose-threads', String(options.poseThreads)] : []),
    ],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const chunks: string[] = [];
  child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exited, output: () => chunks.join('') };
}

/** `npm run worker-token -- …` on the servers' configuration (their DATABASE_URL). */
export function workerToken(databaseUrl: string, ...argv: string[]): Promise<{ code: number | null; output: string }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'apps/server/src/processing/worker-token-cli.ts', ...argv],
    { cwd: repoRoot, env: { ...process.env, DATABASE_URL: databaseUrl }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const chunks: string[] = [];
  child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, output: chunks.join('') })));
}

/** A new worker token named `name`, as `worker-token create` prints it once. */
export async function createWorkerToken(databaseUrl: string, name: string): Promise<string> {
  const made = await workerToken(databaseUrl, 'create', '--name', name);
  const token = /^kwt_\S+$/m.exec(made.output)?.[0];
  if (made.code !== 0 || !token) throw new Error(`worker-token create failed (${made.code}): ${made.output}`);
  return token;
}
