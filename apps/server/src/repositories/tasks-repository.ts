import { and, eq, lt } from 'drizzle-orm';
import { schema, type Database } from '@kinetrace/db';

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
    async remove(id: string): Promise<void> {
      await db.delete(tasks).where(eq(tasks.id, id));
    },
  };
}

export type TasksRepository = ReturnType<typeof createTasksRepository>;
