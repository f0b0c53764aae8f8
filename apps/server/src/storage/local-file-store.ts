import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { randomUUID } from 'node:crypto';
import { assertSafeKey, type FileStore } from './file-store.ts';

async function sizeOf(path: string): Promise<number | null> {
  try {
    const info = await stat(path);
    return info.isFile() ? info.size : null;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
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
      if (Buffer.isBuffer(data)) await writeFile(partial, data);
      else await pipeline(data as Readable, createWriteStream(partial));
      await rename(partial, path);
    },
    async read(key, range) {
      const size = await sizeOf(pathOf(key));
      if (size === null) return null;
      return { stream: createReadStream(pathOf(key), range), sizeBytes: size };
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
