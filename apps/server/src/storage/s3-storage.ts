import type { ObjectStoreConfig } from '../config.ts';
import type { FileStore } from './file-store.ts';
import { assertBucketReachable, createS3FileStore, s3ClientConfig } from './s3-file-store.ts';
import { createS3UploadStaging } from './s3-upload-staging.ts';
import { tailKeepingS3Store } from './s3-upload-store.ts';
import type { UploadStaging } from './upload-staging.ts';

/** tus's S3 store sends a part to the bucket for each 8 MiB a phone sends; S3 takes no part under 5 MiB but the last. */
const UPLOAD_PART_BYTES = 8 * 1024 * 1024;

/**
 * The bucket's file store and upload staging, once the bucket has answered. The AWS SDK is loaded here
 * and only here: a server on local disk never holds it (about 28 MB of memory and a second of start-up).
 */
export async function openS3Storage(
  store: ObjectStoreConfig,
  dataDir: string,
): Promise<{ files: FileStore; staging: UploadStaging; close(): void }> {
  const [{ S3 }, { Upload }, { S3Store }] = await Promise.all([
    import('@aws-sdk/client-s3'),
    import('@aws-sdk/lib-storage'),
    import('@tus/s3-store'),
  ]);
  const clientConfig = s3ClientConfig(store);
  const s3 = new S3(clientConfig);
  try {
    await assertBucketReachable(s3, store);
  } catch (error) {
    s3.destroy();
    throw error;
  }
  const datastore = new (tailKeepingS3Store(S3Store))({
    s3ClientConfig: { ...clientConfig, bucket: store.bucket },
    partSize: UPLOAD_PART_BYTES,
  });
  return {
    files: createS3FileStore(s3, Upload, store.bucket),
    staging: createS3UploadStaging(dataDir, s3, datastore, store.bucket),
    close: () => s3.destroy(),
  };
}
