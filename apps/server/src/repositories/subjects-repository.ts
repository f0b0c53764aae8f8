import { and, asc, desc, eq, ilike, isNotNull, lt, or, sql, type SQL } from 'drizzle-orm';
import { schema, type Database } from '@kinetrace/db';

export type SubjectRow = typeof schema.subjects.$inferSelect;
export type NewSubject = typeof schema.subjects.$inferInsert;

const { subjects } = schema;

const sortColumns = {
  name: subjects.name,
  weight: subjects.weightKg,
  height: subjects.heightM,
  birth_year: subjects.birthYear,
  sex_at_birth: subjects.sexAtBirth,
  gender: subjects.gender,
  created_at: subjects.createdAt,
} as const;

export interface SubjectListFilter {
  userId: number;
  search: string;
  includeTrashed: boolean;
  sort: keyof typeof sortColumns;
  sortDesc: boolean;
  start: number;
  /** -1 for all. */
  quantity: number;
  /** Listed first whatever the order (the session's current subject in a picker). */
  firstId?: number;
}

export function createSubjectsRepository(db: Database) {
  // Correlated subquery with qualified names: Drizzle leaves columns unqualified in single-table selects.
  const sessionsCount = sql<number>`(select count(*)::int from sessions s where s.subject_id = "subjects"."id" and s.trashed = false)`;

  return {
    async findById(id: number): Promise<SubjectRow | undefined> {
      const [row] = await db.select().from(subjects).where(eq(subjects.id, id));
      return row;
    },
    async sessionsCount(id: number): Promise<number> {
      const [row] = await db.select({ count: sessionsCount }).from(subjects).where(eq(subjects.id, id));
      return row?.count ?? 0;
    },
    async list(
      filter: SubjectListFilter,
    ): Promise<{ rows: (SubjectRow & { sessionsCount: number })[]; total: number }> {
      const conditions: SQL[] = [eq(subjects.userId, filter.userId)];
      if (!filter.includeTrashed) conditions.push(eq(subjects.trashed, false));
      if (filter.search) {
        const pattern = `%${filter.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
        conditions.push(or(ilike(subjects.name, pattern), sql`${subjects.characteristics} ilike ${pattern}`)!);
      }
      const where = and(...conditions);
      const column = sortColumns[filter.sort];
      const order = [
        ...(filter.firstId ? [desc(sql`${subjects.id} = ${filter.firstId}`)] : []),
        filter.sortDesc ? sql`${column} desc nulls last` : sql`${column} asc nulls last`,
        asc(subjects.id),
      ];
      const query = db
        .select({ subject: subjects, sessionsCount })
        .from(subjects)
        .where(where)
        .orderBy(...order)
        .offset(filter.start);
      const rows = filter.quantity === -1 ? await query : await query.limit(filter.quantity);
      const [{ total }] = await db
        .select({ total: sql<number>`count(*)::int` })
        .from(subjects)
        .where(where);
      return { rows: rows.map((row) => ({ ...row.subject, sessionsCount: row.sessionsCount })), total };
    },
    async insert(subject: NewSubject): Promise<SubjectRow> {
      const [row] = await db.insert(subjects).values(subject).returning();
      return row;
    },
    async update(id: number, changes: Partial<NewSubject>): Promise<SubjectRow> {
      const [row] = await db
        .update(subjects)
        .set({ ...changes, updatedAt: new Date() })
        .where(eq(subjects.id, id))
        .returning();
      return row;
    },
    async remove(id: number): Promise<void> {
      await db.delete(subjects).where(eq(subjects.id, id));
    },
    async idsOfUser(userId: number): Promise<number[]> {
      const rows = await db.select({ id: subjects.id }).from(subjects).where(eq(subjects.userId, userId));
      return rows.map((row) => row.id);
    },
    /** Subjects trashed before `cutoff`, for the retention job. */
    async trashedBefore(cutoff: Date): Promise<SubjectRow[]> {
      return db
        .select()
        .from(subjects)
        .where(and(eq(subjects.trashed, true), isNotNull(subjects.trashedAt), lt(subjects.trashedAt, cutoff)));
    },
  };
}

export type SubjectsRepository = ReturnType<typeof createSubjectsRepository>;
