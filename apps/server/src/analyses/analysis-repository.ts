import { and, asc, eq, inArray, isNotNull, lt, or, sql, type SQL } from 'drizzle-orm';
import { analysisResultTag, type AnalysisKind, type AnalysisStatus } from '@kinetrace/contracts';
import { schema, type Database } from '@kinetrace/db';
import type { SessionRowDb } from '../repositories/sessions-repository.ts';
import type { TrialRow } from '../repositories/trials-repository.ts';

const { analysisResults, trials, sessions, trialResults } = schema;

export type AnalysisRow = Omit<typeof analysisResults.$inferSelect, 'kind' | 'status'> & {
  kind: AnalysisKind;
  status: AnalysisStatus;
};

/** An analysis with its trial and the trial's session (who owns it, whether it is public). */
export interface AnalysisWithTrial {
  analysis: AnalysisRow;
  trial: TrialRow;
  session: SessionRowDb;
}

/** How a finished analysis ends: its result file, or the message users read. */
export type AnalysisOutcome = { status: 'successfull'; storageKey: string } | { status: 'failed'; error: string };

/**
 * A successfull analysis whose result is gone (reprocessing replaced all the trial's results) no
 * longer describes the trial: it is treated as never run.
 */
const stillValid = or(sql`${analysisResults.status} <> 'successfull'`, isNotNull(analysisResults.resultId))!;

/** The analysis states of trials (one per trial and kind), their tasks and their results. */
export function createAnalysisRepository(db: Database) {
  const withTrial = (...conditions: (SQL | undefined)[]) =>
    db
      .select({ analysis: analysisResults, trial: trials, session: sessions })
      .from(analysisResults)
      .innerJoin(trials, eq(analysisResults.trialId, trials.id))
      .innerJoin(sessions, eq(trials.sessionId, sessions.id))
      .where(and(stillValid, ...conditions))
      .orderBy(asc(trials.createdAt), asc(trials.id))
      .then((rows) => rows as AnalysisWithTrial[]);

  return {
    /** A new pending task for the trial and kind, replacing any earlier state (Re-run). */
    async start(trialId: string, kind: AnalysisKind): Promise<AnalysisRow> {
      const [row] = await db
        .insert(analysisResults)
        .values({ trialId, kind })
        .onConflictDoUpdate({
          target: [analysisResults.trialId, analysisResults.kind],
          set: { taskId: sql`gen_random_uuid()`, status: 'pending', error: null, updatedAt: new Date() },
        })
        .returning();
      return row as AnalysisRow;
    },

    async byTask(taskId: string): Promise<AnalysisWithTrial | undefined> {
      const [row] = await withTrial(eq(analysisResults.taskId, taskId));
      return row;
    },

    /** The states of these trials (every kind). */
    async ofTrials(trialIds: string[]): Promise<AnalysisWithTrial[]> {
      return trialIds.length === 0 ? [] : withTrial(inArray(analysisResults.trialId, trialIds));
    },

    /** The states of a user's trials, optionally of one session. */
    async ofUser(
      userId: number,
      filter: { sessionId?: string; status?: AnalysisStatus } = {},
    ): Promise<AnalysisWithTrial[]> {
      return withTrial(
        eq(sessions.userId, userId),
        filter.sessionId === undefined ? undefined : eq(sessions.id, filter.sessionId),
        filter.status === undefined ? undefined : eq(analysisResults.status, filter.status),
      );
    },

    /** Successfull analyses of a kind on trials and sessions not in the recycle bin, narrowed by owner, subject or trial. */
    async successfull(
      kind: AnalysisKind,
      filter: { userId?: number; subjectId?: number; trialId?: string },
    ): Promise<AnalysisWithTrial[]> {
      return withTrial(
        eq(analysisResults.kind, kind),
        eq(analysisResults.status, 'successfull'),
        eq(trials.trashed, false),
        eq(sessions.trashed, false),
        filter.userId === undefined ? undefined : eq(sessions.userId, filter.userId),
        filter.subjectId === undefined ? undefined : eq(sessions.subjectId, filter.subjectId),
        filter.trialId === undefined ? undefined : eq(trials.id, filter.trialId),
      );
    },

    /** Marks a pending task alive (its attempt's heartbeat): recovery leaves a recently touched one alone. */
    async touch(taskId: string): Promise<void> {
      await db
        .update(analysisResults)
        .set({ updatedAt: new Date() })
        .where(and(eq(analysisResults.taskId, taskId), eq(analysisResults.status, 'pending')));
    },

    /** Tasks pending and untouched since `before`. */
    async pendingSince(before: Date): Promise<string[]> {
      const rows = await db
        .select({ taskId: analysisResults.taskId })
        .from(analysisResults)
        .where(and(eq(analysisResults.status, 'pending'), lt(analysisResults.updatedAt, before)));
      return rows.map((row) => row.taskId);
    },

    /**
     * Ends a pending task: the trial's earlier result of this kind is replaced by the new one (or
     * removed when the analysis failed), in one transaction. Answers the storage keys of the results
     * replaced, or null when the task is no longer current (invoked again meanwhile, trial removed).
     */
    async finish(taskId: string, outcome: AnalysisOutcome): Promise<string[] | null> {
      return db.transaction(async (tx) => {
        const [current] = await tx
          .select()
          .from(analysisResults)
          .where(and(eq(analysisResults.taskId, taskId), eq(analysisResults.status, 'pending')))
          .for('update');
        if (!current) return null;
        const tag = analysisResultTag(current.kind as AnalysisKind);
        const replaced = await tx
          .delete(trialResults)
          .where(and(eq(trialResults.trialId, current.trialId), eq(trialResults.tag, tag)))
          .returning({ storageKey: trialResults.storageKey });
        const [result] =
          outcome.status === 'successfull'
            ? await tx
                .insert(trialResults)
                .values({ trialId: current.trialId, tag, storageKey: outcome.storageKey })
                .returning()
            : [];
        await tx
          .update(analysisResults)
          .set({
            status: outcome.status,
            error: outcome.status === 'failed' ? outcome.error : null,
            resultId: result?.id ?? null,
            updatedAt: new Date(),
          })
          .where(eq(analysisResults.taskId, taskId));
        return replaced.flatMap((row) => (row.storageKey ? [row.storageKey] : []));
      });
    },

    /** The storage key of a successfull analysis's result file. */
    async resultKeys(resultIds: number[]): Promise<Map<number, string>> {
      if (resultIds.length === 0) return new Map();
      const rows = await db
        .select({ id: trialResults.id, storageKey: trialResults.storageKey })
        .from(trialResults)
        .where(inArray(trialResults.id, resultIds));
      return new Map(rows.flatMap((row) => (row.storageKey ? [[row.id, row.storageKey] as const] : [])));
    },
  };
}

export type AnalysisRepository = ReturnType<typeof createAnalysisRepository>;
