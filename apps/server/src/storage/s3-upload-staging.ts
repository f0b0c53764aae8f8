import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { S3 } from '@aws-sdk/client-s3';
import type { S3Store } from '@tus/s3-store';
import { ERRORS, type Upload } from '@tus/server';
import { isMissing } from './s3-file-store.ts';
import { localImportFolders, stagedUploadOf, type StagedUpload, type UploadStaging } from './upload-staging.ts';

/** tus's S3 store keeps each upload's description in `<id>.info`, beside the upload's object (`<id>`). */
const INFO_SUFFIX = '.info';

/**
 * Uploads in the bucket (tus's S3 store: a multipart upload per video, its description in `<id>.info`,
 * a tail shorter than a part in `<id>.part`), at the bucket's top level beside `files/`. A finished
 * upload is copied to this server's disk for the probe, in an import folder (swept like one if the
 * server stops before the upload is removed).
 */
export function createS3UploadStaging(dataDir: string, s3: S3, datastore: S3Store, bucket: string): UploadStaging {
  const folders = localImportFolders(dataDir);
  /** The folder holding each received file this process fetched, until its upload is removed. */
  const received = new Map<string, string>();

  return {
    datastore,
    async receivedFile(uploadId) {
      const answer = await s3.getObject({ Bucket: bucket, Key: uploadId });
      const folder = await folders.newImportFolder();
      received.set(uploadId, folder);
      const path = join(folder, 'video');
      await pipeline(answer.Body as Readable, createWriteStream(path));
      return path;
    },
    async list() {
      const uploads: StagedUpload[] = [];
      let token: string | undefined;
      do {
        // Uploads sit at the top level: the delimiter leaves out everything under files/.
        const page = await s3.listObjectsV2({ Bucket: bucket, Delimiter: '/', ContinuationToken: token });
        for (const object of page.Contents ?? []) {
          if (!object.Key?.endsWith(INFO_SUFFIX)) continue;
          // The description as tus wrote it (its Upload as JSON): one read, where tus's getUpload also lists the parts.
          const info = await s3.getObject({ Bucket: bucket, Key: object.Key }).catch(() => undefined);
          const upload = info?.Body && (JSON.parse(await info.Body.transformToString()) as Upload);
          if (upload) uploads.push(stagedUploadOf({ ...upload, id: object.Key.slice(0, -INFO_SUFFIX.length) }));
        }
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      return uploads;
    },
    async remove(uploadId) {
      // tus's removal aborts an unfinished multipart upload (of a finished one it finds none, and stops there).
      await datastore.remove(uploadId).catch((error: unknown) => {
        if (error !== ERRORS.FILE_NOT_FOUND && !isMissing(error)) throw error;
      });
      const objects = [uploadId, `${uploadId}${INFO_SUFFIX}`, `${uploadId}.part`].map((Key) => ({ Key }));
      await s3.deleteObjects({ Bucket: bucket, Delete: { Objects: objects, Quiet: true } });
      const folder = received.get(uploadId);
      received.delete(uploadId);
      if (folder) await folders.removeImportFolder(folder);
    },
    ...folders,
  };
}
