import type { Readable } from 'node:stream';
// Types only: the SDK is loaded when a bucket is configured (s3-storage.ts), never by a server on local disk.
import type { S3, S3ClientConfig } from '@aws-sdk/client-s3';
import type { Upload } from '@aws-sdk/lib-storage';
import type { ObjectStoreConfig } from '../config.ts';
import { assertSafeKey, type FileStore } from './file-store.ts';

/** The stored files' keys in the bucket start with this, as they sit under DATA_DIR/files on local disk. */
export const FILES_PREFIX = 'files/';

/** Connections to the store one client may hold at once. */
const STORE_SOCKETS = 1000;

/** The client settings for the configured store, shared by the file store and the tus uploads. */
export function s3ClientConfig(store: ObjectStoreConfig): S3ClientConfig {
  return {
    region: store.region,
    forcePathStyle: store.forcePathStyle,
    ...(store.endpoint && { endpoint: store.endpoint }),
    ...(store.credentials && { credentials: store.credentials }),
    // Checksums only where S3 requires them: many S3-compatible stores do not read the SDK's newer
    // streamed (aws-chunked) checksums and would store their framing as the file's bytes.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    // A video being watched holds its stream from the store for as long as the player reads it, a
    // paused one until the store drops it: with the SDK's 50 sockets, a dozen open viewers of four
    // cameras would leave every other read and write of the server waiting.
    requestHandler: {
      httpAgent: { keepAlive: true, maxSockets: STORE_SOCKETS },
      httpsAgent: { keepAlive: true, maxSockets: STORE_SOCKETS },
    },
  };
}

/** Whether the SDK's error says the object (or the bucket) is not there. */
export function isMissing(error: unknown): boolean {
  const { name, $metadata } = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return name === 'NoSuchKey' || name === 'NotFound' || $metadata?.httpStatusCode === 404;
}

/** A store that cannot be used as configured: the server does not start on it. */
export class ObjectStoreUnreachableError extends Error {}

/** Checks at start that the bucket answers with the configured credentials, and says plainly when it does not. */
export async function assertBucketReachable(s3: S3, store: ObjectStoreConfig): Promise<void> {
  try {
    await s3.headBucket({ Bucket: store.bucket });
  } catch (error) {
    const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
    const where = store.endpoint ?? `AWS (${store.region})`;
    const why =
      status === 404
        ? 'it does not exist: create it first'
        : status === 403 || status === 401
          ? 'the credentials (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY) may not use it'
          : `the store did not answer (${(error as Error).message})`;
    throw new ObjectStoreUnreachableError(`S3_BUCKET ${store.bucket} at ${where} cannot be used: ${why}.`);
  }
}

/**
 * Files in an S3-compatible bucket, under `files/`. A put is one object write (multipart for large
 * streams), so a reader never sees half a file; a range read is the store's own ranged GET.
 */
export function createS3FileStore(s3: S3, upload: typeof Upload, bucket: string): FileStore {
  const objectKey = (key: string) => {
    assertSafeKey(key);
    return `${FILES_PREFIX}${key}`;
  };
  return {
    async put(key, data) {
      await new upload({ client: s3, params: { Bucket: bucket, Key: objectKey(key), Body: data } }).done();
    },
    async read(key, range) {
      try {
        const answer = await s3.getObject({
          Bucket: bucket,
          Key: objectKey(key),
          ...(range && { Range: `bytes=${range.start}-${range.end}` }),
        });
        // A ranged answer gives the whole size after the slash of its Content-Range.
        const total = answer.ContentRange ? Number(answer.ContentRange.split('/')[1]) : answer.ContentLength;
        return { stream: answer.Body as Readable, sizeBytes: total ?? 0 };
      } catch (error) {
        if (isMissing(error)) return null;
        throw error;
      }
    },
    async size(key) {
      try {
        const head = await s3.headObject({ Bucket: bucket, Key: objectKey(key) });
        return head.ContentLength ?? 0;
      } catch (error) {
        if (isMissing(error)) return null;
        throw error;
      }
    },
    async remove(key) {
      await s3.deleteObject({ Bucket: bucket, Key: objectKey(key) });
    },
    async removeTree(prefix) {
      const folder = `${objectKey(prefix)}/`;
      let token: string | undefined;
      do {
        // Up to 1000 keys a page, the most one DeleteObjects takes.
        const page = await s3.listObjectsV2({ Bucket: bucket, Prefix: folder, ContinuationToken: token });
        const keys = (page.Contents ?? []).map((object) => ({ Key: object.Key! }));
        if (keys.length > 0) await s3.deleteObjects({ Bucket: bucket, Delete: { Objects: keys, Quiet: true } });
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
    },
  };
}
