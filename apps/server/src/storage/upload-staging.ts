import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  DeleteObjectsCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  type S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { FileStore as TusFileStore } from '@tus/file-store';
import { S3Store } from '@tus/s3-store';
import { ERRORS, type DataStore, type Upload } from '@tus/server';
import { isOutOfSpace, outOfSpaceTusError } from './out-of-space.ts';
import { isMissing } from './s3-file-store.ts';

/** A video upload the server has begun to receive and not finished (tus), as its creation described it. */
export interface StagedUpload {
  id: string;
  trialId: string | undefined;
  deviceId: string | undefined;
  createdAt: Date;
}

/**
 * Files on their way in, before a service has read them: resumable video uploads (tus) as they arrive,
 * and the files of one multipart request (an import) while it is handled. Local disk under the data
 * folder is the embedded implementation; with an object store the uploads are in the bucket, where every
 * server process finds them (one that dies mid-upload loses none of it), and an import's files, which
 * live for its one request, stay on the disk of the server handling it.
 */
export interface UploadStaging {
  /** Where tus receives the uploads. */
  datastore: DataStore;
  /** The received file of a finished upload on this server's disk, to be probed and stored (gone with the upload). */
  receivedFile(uploadId: string): Promise<string>;
  list(): Promise<StagedUpload[]>;
  remove(uploadId: string): Promise<void>;
  /** A new folder of its own for one request's files. */
  newImportFolder(): Promise<string>;
  removeImportFolder(path: string): Promise<void>;
  /** Import folders made before `cutoff`: a request that old has ended without removing its folder (a crash). */
  importFoldersBefore(cutoff: Date): Promise<string[]>;
}

/**
 * tus's file store, except that a disk that is full says so (507, tus's own answer is a bare 500): the
 * same write, a stream of the request's bytes appended at the upload's offset.
 */
class StagingFileStore extends TusFileStore {
  override async write(readable: Readable, uploadId: string, offset: number): Promise<number> {
    let received = 0;
    const counting = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        received += chunk.length;
        done(null, chunk);
      },
    });
    // tus makes the ids; one from a request's path that is not one of them names no file here.
    if (!/^[\w-]+$/.test(uploadId)) throw ERRORS.FILE_NOT_FOUND;
    try {
      await pipeline(
        readable,
        counting,
        createWriteStream(join(this.directory, uploadId), { flags: 'r+', start: offset }),
      );
    } catch (error) {
      throw isOutOfSpace(error) ? outOfSpaceTusError() : ERRORS.FILE_WRITE_ERROR;
    }
    return offset + received;
  }
}

/** Folders of their own for one multipart request's files, under the data folder. */
function localImportFolders(dataDir: string): Pick<
  UploadStaging,
  'newImportFolder' | 'removeImportFolder' | 'importFoldersBefore'
> {
  const importsDir = join(dataDir, 'staging', 'imports');
  return {
    async newImportFolder() {
      await mkdir(importsDir, { recursive: true });
      return mkdtemp(join(importsDir, 'import-'));
    },
    async removeImportFolder(path) {
      await rm(path, { recursive: true, force: true });
    },
    async importFoldersBefore(cutoff) {
      const names = await readdir(importsDir).catch(() => []);
      const old: string[] = [];
      for (const name of names) {
        const info = await stat(join(importsDir, name)).catch(() => undefined);
        if (info && info.mtime < cutoff) old.push(join(importsDir, name));
      }
      return old;
    },
  };
}

/** An upload as its creation described it, from tus's record of it. */
function stagedUploadOf(upload: Upload): StagedUpload {
  return {
    id: upload.id,
    trialId: upload.metadata?.trial_id ?? undefined,
    deviceId: upload.metadata?.device_id ?? undefined,
    createdAt: new Date(upload.creation_date ?? 0),
  };
}

export function createLocalUploadStaging(dataDir: string): UploadStaging {
  const uploadsDir = join(dataDir, 'uploads');
  const datastore = new StagingFileStore({ directory: uploadsDir });

  return {
    datastore,
    receivedFile: async (uploadId) => join(uploadsDir, uploadId),
    async list() {
      const ids = await datastore.configstore.list!().catch(() => []);
      const uploads: StagedUpload[] = [];
      for (const id of ids) {
        const upload = await datastore.configstore.get(id);
        if (upload) uploads.push(stagedUploadOf({ ...upload, id } as Upload));
      }
      return uploads;
    },
    async remove(uploadId) {
      await rm(join(uploadsDir, uploadId), { force: true });
      await rm(join(uploadsDir, `${uploadId}.json`), { force: true });
    },
    ...localImportFolders(dataDir),
  };
}

/** tus's S3 store keeps each upload's description in `<id>.info`, beside the upload's object (`<id>`). */
const INFO_SUFFIX = '.info';

/**
 * Uploads in the bucket (tus's S3 store: a multipart upload per video, its description in `<id>.info`,
 * a tail shorter than a part in `<id>.part`), at the bucket's top level beside `files/`. A finished
 * upload is copied to this server's disk for the probe, in an import folder (swept like one if the
 * server stops before the upload is removed).
 */
export function createS3UploadStaging(dataDir: string, client: S3Client, clientConfig: S3ClientConfig, bucket: string) {
  const datastore = new S3Store({
    s3ClientConfig: { ...clientConfig, bucket },
    // One part per 8 MiB the phone sends; S3 takes no part under 5 MiB but the last.
    partSize: 8 * 1024 * 1024,
  });
  const folders = localImportFolders(dataDir);
  /** The folder holding each received file this process fetched, until its upload is removed. */
  const received = new Map<string, string>();

  const staging: UploadStaging = {
    datastore,
    async receivedFile(uploadId) {
      const answer = await client.send(new GetObjectCommand({ Bucket: bucket, Key: uploadId }));
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
        const page = await client.send(
          new ListObjectsV2Command({ Bucket: bucket, Delimiter: '/', ContinuationToken: token }),
        );
        for (const object of page.Contents ?? []) {
          if (!object.Key?.endsWith(INFO_SUFFIX)) continue;
          const upload = await datastore.getUpload(object.Key.slice(0, -INFO_SUFFIX.length)).catch(() => undefined);
          if (upload) uploads.push(stagedUploadOf(upload));
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
      await client.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: objects, Quiet: true } }));
      const folder = received.get(uploadId);
      received.delete(uploadId);
      if (folder) await folders.removeImportFolder(folder);
    },
    ...folders,
  };
  return staging;
}
