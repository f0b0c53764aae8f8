import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import lockfile from 'proper-lockfile';

/**
 * A lock this long without its holder refreshing it (every STALE_AFTER_MS / 2) belongs to a process that
 * is gone (kill -9, a power cut): the next server takes it over. Refreshing is a timer, so an event loop
 * blocked longer than this does not lose the lock unless another server took it meanwhile.
 */
const STALE_AFTER_MS = 10_000;
/** How long a starting server waits for the lock of a server known to be gone to go stale. */
const STALE_WAIT = { retries: Math.ceil(STALE_AFTER_MS / 1000) + 3, factor: 1, minTimeout: 1000, maxTimeout: 1000 };

/** Who holds a data folder: written beside the lock once it is taken, read by a server refused it. */
interface LockHolder {
  pid: number;
  host: string;
  startedAt: string;
}

/** A second server refused the data folder: the message names the holder, for the person who started it. */
export class DataDirInUseError extends Error {
  constructor(dataDir: string, holder: LockHolder | undefined) {
    super(
      `Another Kinetrace server${holder ? ` (process ${holder.pid} on ${holder.host}, started ${holder.startedAt})` : ''} ` +
        `is using the data folder ${dataDir}. Stop it first, or give this server another DATA_DIR.`,
    );
    this.name = 'DataDirInUseError';
  }
}

const isRunningHere = (holder: LockHolder) => {
  if (holder.host !== hostname()) return true; // another machine's process cannot be checked from here
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * Takes the data folder for this process before anything in it is opened: an embedded database has one
 * server at a time (two PGlite instances writing one database destroy it). A folder held by a running server is refused at once, naming the holder; a
 * lock left by a process that is gone is taken over once it is stale (at most STALE_AFTER_MS after the
 * holder stopped). `onLost` runs if another process ever takes the lock from this one.
 */
export async function lockDataDir(dataDir: string, onLost: (error: Error) => void): Promise<() => Promise<void>> {
  await mkdir(dataDir, { recursive: true });
  const lockPath = join(dataDir, 'kinetrace.lock');
  const holderPath = `${lockPath}.json`;
  const take = (retries: typeof STALE_WAIT | 0) =>
    lockfile.lock(dataDir, {
      lockfilePath: lockPath,
      stale: STALE_AFTER_MS,
      retries,
      realpath: false,
      onCompromised: onLost,
    });
  const readHolder = () =>
    readFile(holderPath, 'utf8').then(
      (text) => JSON.parse(text) as LockHolder,
      () => undefined,
    );

  let release: () => Promise<void>;
  try {
    release = await take(0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ELOCKED') throw error;
    const holder = await readHolder();
    if (!holder || isRunningHere(holder)) throw new DataDirInUseError(dataDir, holder);
    release = await take(STALE_WAIT).catch(async (retried: unknown) => {
      if ((retried as NodeJS.ErrnoException).code !== 'ELOCKED') throw retried;
      throw new DataDirInUseError(dataDir, await readHolder());
    });
  }
  const holder: LockHolder = { pid: process.pid, host: hostname(), startedAt: new Date().toISOString() };
  await writeFile(holderPath, `${JSON.stringify(holder)}\n`);
  return release;
}
