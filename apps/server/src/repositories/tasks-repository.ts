import { and, eq, isNotNull, lt, or } from 'drizzle-orm';
import { schema, type Database } from '@kinetrace/db';
import { parseDownloadKey } from '../services/storage-keys.ts';

export type TaskRow = typeof schema.tasks.$inferSelect;
const { tasks } = schema;

export function createTasksRepository(db: Database) {
  return {
    async insert(task: typeof tasks.$inferInsert): Promise<TaskRow> {
      const [row] = await db.insert(tasks).values(task).returning();
      return row;
    },
    async findById(id: string): Promise<TaskRow | undefined> {
      const [row] = await db.select().from(tasks).where(eq(tasks.id, id));
      return row;
    },
    async update(id: string, changes: Partial<typeof tasks.$inferInsert>): Promise<void> {
      await db.update(tasks).set(changes).where(eq(tasks.id, id));
    },
    async finishedBefore(cutoff: Date): Promise<TaskRow[]> {
      return db
        .select()
        .from(tasks)
        .where(and(eq(tasks.status, 'done'), lt(tasks.createdAt, cutoff)));
    },
    /**
     * The tasks `userId` asked for, and those whose prepared archive holds one of `sessionIds` or
     * `subjectIds` (its key names it): a visitor's or a share-link holder's archive of the user's data.
     */
    async idsHoldingDataOf(userId: number, sessionIds: string[], subjectIds: number[]): Promise<string[]> {
      const rows = await db
        .select({ id: tasks.id, userId: tasks.userId, resultKey: tasks.resultKey })
        .from(tasks)
        .where(or(eq(tasks.userId, userId), isNotNull(tasks.resultKey)));
      const sessionsHeld = new Set(sessionIds);
      const subjectsHeld = new Set(subjectIds);
      return rows
        .filter((row) => {
          if (row.userId === userId) return true;
          const target = row.resultKey ? parseDownloadKey(row.resultKey)?.target : undefined;
          return target?.kind === 'session'
            ? sessionsHeld.has(target.sessionId)
            : subjectsHeld.has(target?.subjectId ?? NaN);
        })
        .map((row) => row.id);
    },
    async remove(id: string): Promise<void> {
      await db.delete(tasks).where(eq(tasks.id, id));
    },
  };
}

export type TasksRepository = ReturnType<typeof createTasksRepository>;
