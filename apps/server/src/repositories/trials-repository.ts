import { and, asc, desc, eq, inArray, isNotNull, lt, sql } from 'drizzle-orm';
import { schema, type Database } from '@kinetrace/db';

export type TrialRow = typeof schema.trials.$inferSelect;
export type NewTrial = typeof schema.trials.$inferInsert;
export type TrialVideoRow = typeof schema.trialVideos.$inferSelect;
export type TrialResultRow = typeof schema.trialResults.$inferSelect;

const { trials, trialVideos, trialResults, sessions } = schema;

export interface TrialWithFiles {
  trial: TrialRow;
  videos: TrialVideoRow[];
  results: TrialResultRow[];
}

export function createTrialsRepository(db: Database) {
  async function withFiles(rows: TrialRow[]): Promise<TrialWithFiles[]> {
    if (rows.length === 0) return [];
    const ids = rows.map((row) => row.id);
    const [videos, results] = await Promise.all([
      db.select().from(trialVideos).where(inArray(trialVideos.trialId, ids)).orderBy(asc(trialVideos.id)),
      db.select().from(trialResults).where(inArray(trialResults.trialId, ids)).orderBy(asc(trialResults.id)),
    ]);
    return rows.map((trial) => ({
      trial,
      videos: videos.filter((video) => video.trialId === trial.id),
      results: results.filter((result) => result.trialId === trial.id),
    }));
  }

  return {
    withFiles,
    async findById(id: string): Promise<TrialRow | undefined> {
      const [row] = await db.select().from(trials).where(eq(trials.id, id));
      return row;
    },
    async ofSession(sessionId: string): Promise<TrialRow[]> {
      return db
        .select()
        .from(trials)
        .where(eq(trials.sessionId, sessionId))
        .orderBy(asc(trials.createdAt), asc(trials.id));
    },
    async insert(trial: NewTrial): Promise<TrialRow> {
      const [row] = await db.insert(trials).values(trial).returning();
      return row;
    },
    async update(id: string, changes: Partial<NewTrial>): Promise<TrialRow> {
      const [row] = await db
        .update(trials)
        .set({ ...changes, updatedAt: new Date() })
        .where(eq(trials.id, id))
        .returning();
      return row;
    },
    async remove(id: string): Promise<void> {
      await db.delete(trials).where(eq(trials.id, id));
    },
    /** Stores a camera's video once: a second one for the same trial and device is refused (undefined). */
    async insertVideo(video: typeof trialVideos.$inferInsert): Promise<TrialVideoRow | undefined> {
      const [row] = await db.insert(trialVideos).values(video).onConflictDoNothing().returning();
      return row;
    },
    /** Adds `parameters` to a stored video's (in one statement: nothing else written meanwhile is lost); false when the video is gone. */
    async addVideoParameters(videoId: number, parameters: Record<string, unknown>): Promise<boolean> {
      const rows = await db
        .update(trialVideos)
        .set({ parameters: sql`${trialVideos.parameters} || ${JSON.stringify(parameters)}::jsonb` })
        .where(eq(trialVideos.id, videoId))
        .returning({ id: trialVideos.id });
      return rows.length > 0;
    },
    async videosOf(trialId: string): Promise<TrialVideoRow[]> {
      return db.select().from(trialVideos).where(eq(trialVideos.trialId, trialId)).orderBy(asc(trialVideos.id));
    },
    async resultsOf(trialId: string): Promise<TrialResultRow[]> {
      return db.select().from(trialResults).where(eq(trialResults.trialId, trialId)).orderBy(asc(trialResults.id));
    },
    async insertResult(result: typeof trialResults.$inferInsert): Promise<TrialResultRow> {
      const [row] = await db.insert(trialResults).values(result).returning();
      return row;
    },
    async trashedBefore(cutoff: Date): Promise<TrialRow[]> {
      return db
        .select()
        .from(trials)
        .where(and(eq(trials.trashed, true), isNotNull(trials.trashedAt), lt(trials.trashedAt, cutoff)));
    },
    /** Trashed trials of a user's sessions, trashed or not (what the recycle bin lists of trials). */
    async trashedOfUser(userId: number): Promise<TrialRow[]> {
      return db
        .select({ trial: trials })
        .from(trials)
        .innerJoin(sessions, eq(trials.sessionId, sessions.id))
        .where(and(eq(sessions.userId, userId), eq(trials.trashed, true)))
        .orderBy(desc(trials.trashedAt), asc(trials.id))
        .then((rows) => rows.map((row) => row.trial));
    },
    async nameTaken(sessionId: string, name: string, exceptTrialId: string): Promise<boolean> {
      const rows = await db
        .select({ id: trials.id })
        .from(trials)
        .where(
          and(
            eq(trials.sessionId, sessionId),
            sql`lower(${trials.name}) = lower(${name})`,
            sql`${trials.id} <> ${exceptTrialId}`,
          ),
        );
      return rows.length > 0;
    },
  };
}

export type TrialsRepository = ReturnType<typeof createTrialsRepository>;
