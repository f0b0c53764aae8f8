import { and, eq, inArray, ne, sql } from 'drizzle-orm';
import type { FollowUp, ProcessingProgress } from '@kinetrace/contracts';
import { schema, type Database } from '@kinetrace/db';
import type { TrialRow } from '../repositories/trials-repository.ts';

const { trials, trialResults, sessions } = schema;
/** The running attempt's id and, when a remote worker holds it, that worker's id (worker_tokens): they go together. */
const ATTEMPT_KEYS = ['processing_attempt', 'processing_worker'];
/** What a run leaves in meta besides its results: an earlier follow-up's state goes when the trial runs again. */
const RUN_KEYS = [...ATTEMPT_KEYS, 'follow_up'];
/** The processing stage a trial shows (null when it is not processing). */
const stageOf = sql`${trials.meta}->'progress'->>'stage'`;

/** A result row to register: its tag, where its file is stored, and per-camera details. */
export interface NewResult {
  tag: string;
  storageKey: string;
  meta: Record<string, unknown> | null;
}

/**
 * The processing state of a trial in the database. Each attempt has an id kept in
 * `meta.processing_attempt`; an attempt writes only while it is the trial's current one, so an
 * attempt overtaken by a retry (after a restart or its time limit) can never add or replace results.
 */
export function createProcessingRepository(db: Database) {
  /** `meta` with `patch` merged in and `drop` keys removed, in one statement (no read-modify-write race). */
  const patchedMeta = (patch: Record<string, unknown>, drop: string[] = []) =>
    sql`(${trials.meta} - ${sql.raw(`'{${drop.join(',')}}'::text[]`)}) || ${JSON.stringify(patch)}::jsonb`;
  const isAttempt = (trialId: string, attemptId: string) =>
    and(eq(trials.id, trialId), sql`${trials.meta}->>'processing_attempt' = ${attemptId}`);
  const followUpRunning = and(eq(trials.status, 'done'), sql`${trials.meta}->'follow_up'->>'status' = 'running'`);

  return {
    /**
     * Queued (again): `status` processing or reprocess, the queue stage shown, any earlier error cleared; only
     * while the trial is still `from`, in one statement, so that of two callers who both saw it so (two phones
     * ending their uploads at once) one queues it. Answers whether this caller did.
     */
    async markQueued(
      trialId: string,
      status: 'processing' | 'reprocess',
      progress: ProcessingProgress,
      from: string,
    ): Promise<boolean> {
      const queued = await db
        .update(trials)
        .set({ status, meta: patchedMeta({ progress }, ['error_msg', ...RUN_KEYS]), updatedAt: new Date() })
        .where(and(eq(trials.id, trialId), eq(trials.status, from)))
        .returning({ id: trials.id });
      return queued.length > 0;
    },

    /**
     * The attempt takes the trial over: later writes of earlier attempts are ignored. `workerId`: the remote
     * worker that leased it (none in-process).
     */
    async startAttempt(
      trialId: string,
      attemptId: string,
      progress: ProcessingProgress,
      workerId?: number,
    ): Promise<void> {
      await db
        .update(trials)
        .set({
          status: 'processing',
          meta: patchedMeta(
            { progress, processing_attempt: attemptId, ...(workerId !== undefined && { processing_worker: workerId }) },
            ['error_msg', ...RUN_KEYS],
          ),
          updatedAt: new Date(),
        })
        .where(eq(trials.id, trialId));
    },

    /**
     * Progress of the current attempt (also its heartbeat: `updated_at` moves) while it processes; false when it
     * is no longer current or the trial is done (a follow-up has progress of its own).
     */
    async setProgress(trialId: string, attemptId: string, progress: ProcessingProgress): Promise<boolean> {
      const updated = await db
        .update(trials)
        .set({ meta: patchedMeta({ progress }), updatedAt: new Date() })
        .where(and(isAttempt(trialId, attemptId), ne(trials.status, 'done')))
        .returning({ id: trials.id });
      return updated.length > 0;
    },

    /** The running follow-up's percentage (also its heartbeat); false when the attempt no longer holds the trial. */
    async setFollowUpProgress(trialId: string, attemptId: string, percent: number): Promise<boolean> {
      const updated = await db
        .update(trials)
        .set({
          meta: sql`jsonb_set(${trials.meta}, '{follow_up,percent}', ${JSON.stringify(percent)}::jsonb)`,
          updatedAt: new Date(),
        })
        .where(and(isAttempt(trialId, attemptId), followUpRunning))
        .returning({ id: trials.id });
      return updated.length > 0;
    },

    /** The trial while `attemptId` is its current attempt and the worker `workerId` holds it. */
    async leasedTrial(trialId: string, attemptId: string, workerId: number): Promise<TrialRow | undefined> {
      const [row] = await db
        .select()
        .from(trials)
        .where(and(isAttempt(trialId, attemptId), sql`${trials.meta}->>'processing_worker' = ${String(workerId)}`));
      return row;
    },

    /** Waiting for a prerequisite trial: no attempt runs. */
    async markWaiting(trialId: string, progress: ProcessingProgress): Promise<void> {
      await db
        .update(trials)
        .set({ status: 'processing', meta: patchedMeta({ progress }, RUN_KEYS), updatedAt: new Date() })
        .where(eq(trials.id, trialId));
    },

    /**
     * Replaces the trial's results with the attempt's and marks it done, in one transaction: readers
     * see the old results or the new ones, never a mix or both. Answers the storage keys of the
     * results replaced (to remove their files), or null when the attempt is no longer current. With
     * `followUp` (running), the attempt keeps the trial until its follow-up ends (addResults, failFollowUp).
     */
    async commitResults(
      trialId: string,
      attemptId: string,
      results: NewResult[],
      followUp?: FollowUp,
    ): Promise<string[] | null> {
      return db.transaction(async (tx) => {
        const [current] = await tx
          .select()
          .from(trials)
          .where(and(isAttempt(trialId, attemptId), ne(trials.status, 'done')))
          .for('update');
        if (!current) return null;
        const replaced = await tx
          .delete(trialResults)
          .where(eq(trialResults.trialId, trialId))
          .returning({ storageKey: trialResults.storageKey });
        if (results.length > 0) await tx.insert(trialResults).values(results.map((result) => ({ trialId, ...result })));
        await tx
          .update(trials)
          .set({
            status: 'done',
            meta: followUp
              ? patchedMeta({ follow_up: followUp }, ['progress', 'error_msg'])
              : patchedMeta({}, ['progress', 'error_msg', ...RUN_KEYS]),
            updatedAt: new Date(),
          })
          .where(eq(trials.id, trialId));
        return replaced.flatMap((row) => (row.storageKey ? [row.storageKey] : []));
      });
    },

    /**
     * Adds the follow-up's results to the done trial's and ends the follow-up, in one transaction; false when
     * the attempt no longer holds the trial (reprocessed meanwhile, or its follow-up given up).
     */
    async addResults(trialId: string, attemptId: string, results: NewResult[]): Promise<boolean> {
      return db.transaction(async (tx) => {
        const [current] = await tx
          .select()
          .from(trials)
          .where(and(isAttempt(trialId, attemptId), followUpRunning))
          .for('update');
        if (!current) return false;
        if (results.length > 0) await tx.insert(trialResults).values(results.map((result) => ({ trialId, ...result })));
        await tx
          .update(trials)
          .set({ meta: patchedMeta({}, RUN_KEYS), updatedAt: new Date() })
          .where(eq(trials.id, trialId));
        return true;
      });
    },

    /**
     * The running follow-up failed (of the attempt, or of whichever attempt when `attemptId` is null: its process
     * stopped): the trial stays done, the follow-up shows `message` where its results would be.
     */
    async failFollowUp(trialId: string, attemptId: string | null, message: string): Promise<void> {
      await db
        .update(trials)
        .set({
          meta: sql`${patchedMeta({}, ATTEMPT_KEYS)} || jsonb_build_object('follow_up', ${trials.meta}->'follow_up' || ${JSON.stringify({ status: 'failed', error_msg: message })}::jsonb)`,
          updatedAt: new Date(),
        })
        .where(and(attemptId === null ? eq(trials.id, trialId) : isAttempt(trialId, attemptId), followUpRunning));
    },

    /** Ends the current attempt (or, without one, the trial) in error with the message users read; never a done trial. */
    async markError(trialId: string, attemptId: string | null, message: string): Promise<void> {
      await db
        .update(trials)
        .set({
          status: 'error',
          meta: patchedMeta({ error_msg: message }, ['progress', ...RUN_KEYS]),
          updatedAt: new Date(),
        })
        .where(
          and(attemptId === null ? eq(trials.id, trialId) : isAttempt(trialId, attemptId), ne(trials.status, 'done')),
        );
    },

    /**
     * How many other trials of the owner of `sessionId` are queued or running (status processing or reprocess);
     * those waiting for their calibration or neutral are not counted, as they hold no worker.
     */
    async pendingOfOwner(sessionId: string, exceptTrialId: string): Promise<number> {
      const owner = db.select({ userId: sessions.userId }).from(sessions).where(eq(sessions.id, sessionId));
      const [row] = await db
        .select({ count: sql<number>`count(*)::int` })
        .from(trials)
        .innerJoin(sessions, eq(trials.sessionId, sessions.id))
        .where(
          and(
            inArray(sessions.userId, owner),
            inArray(trials.status, ['processing', 'reprocess']),
            eq(trials.trashed, false),
            ne(trials.id, exceptTrialId),
            sql`coalesce(${stageOf}, '') not in ('waiting_for_calibration', 'waiting_for_neutral')`,
          ),
        );
      return row?.count ?? 0;
    },

    /** The session's trials waiting (status processing, no attempt) at `stage`, trashed ones too. */
    async waitingAt(sessionId: string, stage: 'waiting_for_calibration' | 'waiting_for_neutral'): Promise<TrialRow[]> {
      return db
        .select()
        .from(trials)
        .where(and(eq(trials.sessionId, sessionId), eq(trials.status, 'processing'), sql`${stageOf} = ${stage}`));
    },
  };
}

export type ProcessingRepository = ReturnType<typeof createProcessingRepository>;
