import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readOutbox } from './outbox.ts';

const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
const packageJson = `${repoRoot}package.json`;

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

let built = false;
/** The web app and the server bundle as `npm start` makes them, rebuilt when their sources changed. */
export function ensureBuilt(): void {
  if (built) return;
  // Not with vitest's NODE_ENV=test: Vite would build React's development bundle, whose StrictMode runs every
  // effect twice (the phone's capture page then closed its own camera and never connected).
  const { NODE_ENV: _testMode, ...env } = process.env;
  execFileSync(process.execPath, ['scripts/ensure-ready.mjs'], { cwd: repoRoot, stdio: 'inherit', env });
  built = true;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/** One server process started as `npm start` starts it. */
export interface ServerProcess {
  baseUrl: string;
  pid: number;
  /** Everything it printed so far (standard output and error). */
  output(): string;
  /** Its exit code (null when ended by a signal), once it has exited. */
  exited: Promise<number | null>;
  /** Waits until it answers; throws with its output if it exits first or takes longer than 90 s. */
  ready(): Promise<void>;
  /** Ends it at once (SIGKILL: no clean-up, as a crash or a power cut). */
  kill(): Promise<void>;
  /** Stops it as an operator does (SIGTERM), then SIGKILL after 10 s. */
  stop(): Promise<void>;
}

/** Starts the built server (ensureBuilt) on `dataDir` and `port` with `env` added; does not wait for it. */
export function spawnServer(options: { dataDir: string; port: number; env?: Record<string, string> }): ServerProcess {
  const baseUrl = `http://127.0.0.1:${options.port}`;
  const chunks: string[] = [];
  const child = spawn(process.execPath, npmStartNodeArgs(), {
    cwd: repoRoot,
    env: {
      ...process.env,
      PORT: String(options.port),
      DATA_DIR: options.dataDir,
      PUBLIC_URL: baseUrl,
      LOG_LEVEL: 'warn',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const output = () => chunks.join('');
  const running = () => child.exitCode === null && child.signalCode === null;

  return {
    baseUrl,
    pid: child.pid!,
    output,
    exited,
    async ready() {
      const deadline = Date.now() + 90_000;
      for (;;) {
        if (!running()) throw new Error(`The server exited with ${child.exitCode ?? child.signalCode}:\n${output()}`);
        const answered = await fetch(`${baseUrl}/api/instance/`).then(
          (response) => response.ok,
          () => false,
        );
        if (answered) return;
        if (Date.now() > deadline) {
          child.kill('SIGKILL');
          throw new Error(`The server did not answer within 90 s:\n${output()}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    },
    async kill() {
      if (running()) child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      if (!running()) return;
      child.kill('SIGTERM');
      const killTimer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killTimer);
    },
  };
}

/**
 * A server process called as the API tests call an app in their own process (TestApp's `call` and `outbox`):
 * over HTTP, a payload sent as JSON or as the multipart form it is, its mail read from its data folder.
 */
export function overHttp(server: ServerProcess, dataDir: string) {
  return {
    async call(options: {
      method: string;
      url: string;
      payload?: Record<string, unknown> | FormData;
      headers?: Record<string, string>;
    }) {
      const json = options.payload !== undefined && !(options.payload instanceof FormData);
      const response = await fetch(`${server.baseUrl}${options.url}`, {
        method: options.method,
        headers: { ...options.headers, ...(json && { 'content-type': 'application/json' }) },
        body: json ? JSON.stringify(options.payload) : (options.payload as FormData | undefined),
      });
      const body = await response.text();
      return { statusCode: response.status, body, json: () => JSON.parse(body) as unknown };
    },
    outbox: () => readOutbox(join(dataDir, 'outbox')),
  };
}
