import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { FileStore as TusFileStore } from '@tus/file-store';
import { ERRORS, type DataStore, type Upload } from '@tus/server';
import { isOutOfSpace, outOfSpaceTusError } from './out-of-space.ts';

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
export function localImportFolders(
  dataDir: string,
): Pick<UploadStaging, 'newImportFolder' | 'removeImportFolder' | 'importFoldersBefore'> {
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
export function stagedUploadOf(upload: Pick<Upload, 'id' | 'metadata' | 'creation_date'>): StagedUpload {
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
        if (upload) uploads.push(stagedUploadOf({ ...upload, id }));
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
