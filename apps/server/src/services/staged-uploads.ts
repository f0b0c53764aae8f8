import type { TrialsRepository } from '../repositories/trials-repository.ts';
import type { UploadStaging } from '../storage/upload-staging.ts';
import { recordingMetaOf } from './video-intake.ts';

/** An upload left unfinished this long is dropped (the phone keeps its video and uploads it again when asked). */
export const UNFINISHED_UPLOAD_LIFETIME_MS = 24 * 3600_000;
/** An import's files are staged for the length of its request: a folder this old was left by a crash. */
const IMPORT_FOLDER_LIFETIME_MS = 24 * 3600_000;

export interface StagingCleanUpReport {
  /** Unfinished uploads older than their lifetime. */
  expired: number;
  /** Uploads no trial waits for: the trial is gone (its account deleted), cancelled, or has that video already. */
  abandoned: number;
  importFolders: number;
}

/**
 * The rules of files on their way in (storage/upload-staging.ts): a trial waits for a phone while its
 * upload is there, and what nobody waits for any longer leaves the disk, at once when an account or
 * a trial is deleted and on the cleaning schedule otherwise.
 */
export function createStagedUploads(deps: { staging: UploadStaging; trials: TrialsRepository; now: () => Date }) {
  const { staging, trials, now } = deps;

  /** Whether the trial still waits for this upload: recording or uploading, not trashed, without the device's video. */
  async function awaited(trialId: string | undefined, deviceId: string | undefined): Promise<boolean> {
    const trial = trialId === undefined ? undefined : await trials.findById(trialId).catch(() => undefined);
    if (!trial || trial.trashed || !['recording', 'uploading'].includes(trial.status)) return false;
    if (!deviceId || !(recordingMetaOf(trial).expected_devices ?? []).includes(deviceId)) return false;
    return !(await trials.videosOf(trial.id)).some((video) => video.deviceId === deviceId);
  }

  async function removeAbandoned(): Promise<number> {
    let removed = 0;
    for (const upload of await staging.list()) {
      if (await awaited(upload.trialId, upload.deviceId)) continue;
      await staging.remove(upload.id);
      removed += 1;
    }
    return removed;
  }

  return {
    /** Whether a phone has begun uploading its video of the trial: the trial waits for it however long the phone is silent. */
    async isUploading(trialId: string, deviceId: string): Promise<boolean> {
      return (await staging.list()).some((upload) => upload.trialId === trialId && upload.deviceId === deviceId);
    },

    removeAbandoned,

    /** The scheduled clean-up: expired and abandoned uploads, and import folders a crash left behind. */
    async cleanUp(): Promise<StagingCleanUpReport> {
      const time = now().getTime();
      let expired = 0;
      for (const upload of await staging.list()) {
        if (upload.createdAt.getTime() > time - UNFINISHED_UPLOAD_LIFETIME_MS) continue;
        await staging.remove(upload.id);
        expired += 1;
      }
      const abandoned = await removeAbandoned();
      const folders = await staging.importFoldersBefore(new Date(time - IMPORT_FOLDER_LIFETIME_MS));
      for (const folder of folders) await staging.removeImportFolder(folder);
      return { expired, abandoned, importFolders: folders.length };
    },
  };
}

export type StagedUploads = ReturnType<typeof createStagedUploads>;
