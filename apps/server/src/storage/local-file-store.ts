import { createWriteStream } from 'node:fs';
import { mkdir, open, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { randomUUID } from 'node:crypto';
import { assertSafeKey, type FileStore } from './file-store.ts';

/** What the file operation gives, or null where the file does not exist. */
async function unlessMissing<T>(operation: Promise<T>): Promise<T | null> {
  try {
    return await operation;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

async function sizeOf(path: string): Promise<number | null> {
  const info = await unlessMissing(stat(path));
  return info?.isFile() ? info.size : null;
}

/** Files under one folder on local disk; writes go to a temporary name first so a reader never sees half a file. */
export function createLocalFileStore(rootDir: string): FileStore {
  const pathOf = (key: string) => {
    assertSafeKey(key);
    return join(rootDir, key);
  };
  return {
    async put(key, data) {
      const path = pathOf(key);
      await mkdir(dirname(path), { recursive: true });
      const partial = `${path}.${randomUUID()}.partial`;
      try {
        if (Buffer.isBuffer(data)) await writeFile(partial, data);
        else await pipeline(data as Readable, createWriteStream(partial));
        await rename(partial, path);
      } catch (error) {
        // What was written goes at once: on a full disk, it is the space the server needs back.
        await rm(partial, { force: true });
        throw error;
      }
    },
    // Opened before it is measured: a file removed meanwhile (a replaced result) is either absent
    // or read whole from the open handle, never a stream that fails after the reply has begun.
    async read(key, range) {
      const handle = await unlessMissing(open(pathOf(key), 'r'));
      if (!handle) return null;
      const info = await handle.stat().catch(async (error: unknown) => {
        await handle.close();
        throw error;
      });
      if (!info.isFile()) {
        await handle.close();
        return null;
      }
      return { stream: handle.createReadStream(range), sizeBytes: info.size };
    },
    size: (key) => sizeOf(pathOf(key)),
    async remove(key) {
      await rm(pathOf(key), { force: true });
    },
    async removeTree(prefix) {
      await rm(pathOf(prefix), { recursive: true, force: true });
    },
  };
}
