import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createWorker } from './worker.ts';
import { createWorkerClient, TokenRefusedError } from './worker-client.ts';

const USAGE = `Usage: npx kinetrace-worker --server URL --token TOKEN [options]
  --server URL        the Kinetrace server (its PUBLIC_URL), started with WORKERS=remote
  --token TOKEN       this machine's worker token (npm run worker-token -- create --name NAME, on the server)
  --pose-threads N    pose-estimation threads (default: one per core)
  --jobs N            trials processed at once (default 1)
  --install-dir DIR   augmenter weights and OpenSim models installed as on the server (default ./data)
  The token may also come from KINETRACE_WORKER_TOKEN. SIGTERM or Ctrl-C: the running trials finish, then it exits.`;

function refuse(message: string): never {
  console.error(message);
  process.exit(2);
}

let args;
try {
  args = parseArgs({
    options: {
      server: { type: 'string' },
      token: { type: 'string' },
      'pose-threads': { type: 'string' },
      jobs: { type: 'string', default: '1' },
      'install-dir': { type: 'string', default: './data' },
      help: { type: 'boolean' },
    },
  }).values;
} catch (error) {
  refuse(`${(error as Error).message}\n${USAGE}`);
}
if (args.help) {
  console.log(USAGE);
  process.exit(0);
}
const token = args.token ?? process.env.KINETRACE_WORKER_TOKEN;
if (!args.server || !token) refuse(`--server and --token are needed.\n${USAGE}`);
const count = (name: string, value: string | undefined) => {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1 || parsed > 64) refuse(`--${name} takes a whole number from 1 to 64.`);
  return parsed;
};
try {
  new URL(args.server);
} catch {
  refuse(`--server takes the server's address, such as https://kinetrace.example.org (not ${args.server}).`);
}

const log = (line: string) => console.log(`${new Date().toISOString()} ${line}`);
const installDir = resolve(args['install-dir']);
const worker = createWorker(createWorkerClient(args.server, token), {
  jobs: count('jobs', args.jobs)!,
  poseThreads: count('pose-threads', args['pose-threads']),
  installDir,
  workRoot: join(tmpdir(), 'kinetrace-worker'),
  log,
});
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    log(`${signal}: finishing the running trials, taking no new one`);
    worker.stop();
  });
}
log(`Kinetrace worker started for ${args.server}`);
try {
  await worker.run();
  log('Stopped');
  process.exit(0);
} catch (error) {
  if (error instanceof TokenRefusedError) {
    console.error(`The server refused this worker's token: ${error.message}`);
    process.exit(3);
  }
  throw error;
}
