import type { Readable } from 'node:stream';

/** Inclusive byte offsets, as in an HTTP Range header. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * Where uploaded and produced files live, addressed by slash-separated keys ("users/7/picture.png").
 * Local disk is the embedded default; an S3-compatible store is the scaled-out implementation.
 */
export interface FileStore {
  put(key: string, data: Buffer | Readable): Promise<void>;
  /** The file's content as a stream, or null when there is no such file. */
  read(key: string, range?: ByteRange): Promise<{ stream: Readable; sizeBytes: number } | null>;
  /** The file's size in bytes, or null when there is no such file. */
  size(key: string): Promise<number | null>;
  remove(key: string): Promise<void>;
  /** Removes every file whose key starts with `prefix/`. */
  removeTree(prefix: string): Promise<void>;
}

/** Keys are made by the server from ids and random names; this refuses anything that could escape the store. */
export function assertSafeKey(key: string): void {
  if (
    !/^[A-Za-z0-9_-]+(?:\/[A-Za-z0-9_.-]+)*$/.test(key) ||
    key.split('/').some((part) => part === '..' || part === '.')
  ) {
    throw new Error(`Invalid storage key "${key}"`);
  }
}
