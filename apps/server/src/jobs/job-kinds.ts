import { z } from 'zod';

/** Every kind of background job, with its one payload schema. */
export const jobKinds = {
  /** Runs an analysis function on a done trial (apps/server/src/analyses/): the task is its analysis state. */
  'analyse-trial': z.object({ taskId: z.string().uuid() }),
  /** Builds a session's or a subject's zip archive for an async download. */
  'archive-download': z.object({
    taskId: z.string().uuid(),
    target: z.discriminatedUnion('kind', [
      z.object({ kind: z.literal('session'), sessionId: z.string().uuid() }),
      z.object({ kind: z.literal('subject'), subjectId: z.number().int() }),
    ]),
    /** The share token the download was asked with: the job builds what that viewer may read. */
    shareToken: z.string().max(200).optional(),
  }),
  /** Runs the motion-capture pipeline on a trial whose videos are all in (apps/server/src/processing/). */
  'process-trial': z.object({ trialId: z.string().uuid() }),
  /** Removes uploads left unfinished or no longer awaited, and import folders a crash left (services/staged-uploads.ts). */
  'clean-uploads': z.object({}),
  /** Removes what has been in the recycle bin longer than the retention period, with its files. */
  'purge-trash': z.object({}),
} as const;

export type JobKind = keyof typeof jobKinds;
export type JobPayload<K extends JobKind> = z.infer<(typeof jobKinds)[K]>;
/** Which try of a job this is: `retryCount` of `retryLimit` retries have been used before it. */
export interface JobAttempt {
  id: string;
  retryCount: number;
  retryLimit: number;
}
export type JobHandler<K extends JobKind> = (payload: JobPayload<K>, attempt: JobAttempt) => Promise<void>;
export type JobHandlers = { [K in JobKind]?: JobHandler<K> };
