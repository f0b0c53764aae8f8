import { messages } from '@kinetrace/contracts';
import { HttpError } from '../http/http-errors.ts';
import type { UploadStaging } from '../storage/upload-staging.ts';
import type { AuthContext } from './auth-service.ts';
import type { SessionService } from './session-service.ts';

/**
 * One user's multipart uploads (video imports, calibration files, lens photos) staged on disk at once: a
 * lab imports one trial at a time, and nobody can fill the disk with parallel requests.
 */
export const STAGED_UPLOADS_PER_USER = 2;

/** Counts of work in progress per key; `take` answers the release, or undefined when `key` is at `limit`. */
export interface ConcurrencySlots {
  take(key: string, limit: number): (() => void) | undefined;
}

/** Counts in memory: each server process bounds what it stages itself. */
export function createMemoryConcurrencySlots(): ConcurrencySlots {
  const taken = new Map<string, number>();
  return {
    take(key, limit) {
      const count = taken.get(key) ?? 0;
      if (count >= limit) return undefined;
      taken.set(key, count + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const left = (taken.get(key) ?? 1) - 1;
        if (left > 0) taken.set(key, left);
        else taken.delete(key);
      };
    },
  };
}

/** Where a multipart request's files are kept while a service reads them, for the users allowed to send them. */
export function createImportStaging(deps: {
  staging: UploadStaging;
  slots: ConcurrencySlots;
  sessionService: SessionService;
}) {
  const { staging, slots, sessionService } = deps;
  return {
    /**
     * Runs `receive` with a folder of its own for the request's files, removed afterwards. The session the
     * files are for (null: the user's own lens calibrations) must be the user's, checked before a byte of
     * the body is read; each user stages at most STAGED_UPLOADS_PER_USER requests at once.
     */
    async receive<T>(
      context: AuthContext,
      sessionId: string | null,
      receive: (folder: string) => Promise<T>,
    ): Promise<T> {
      if (sessionId !== null) await sessionService.ownSession(context, sessionId);
      const release = slots.take(`user:${context.user.id}`, STAGED_UPLOADS_PER_USER);
      if (!release) throw new HttpError(429, { detail: messages.importsInProgress(STAGED_UPLOADS_PER_USER) });
      try {
        const folder = await staging.newImportFolder();
        try {
          return await receive(folder);
        } finally {
          await staging.removeImportFolder(folder);
        }
      } finally {
        release();
      }
    },
  };
}

export type ImportStaging = ReturnType<typeof createImportStaging>;
