import { and, asc, desc, eq, ilike, inArray, isNotNull, isNull, lt, or, sql, type SQL } from 'drizzle-orm';
import { schema, type Database } from '@kinetrace/db';
import { RESERVED_TRIAL_NAMES } from '@kinetrace/contracts';
import type { ChangeCache } from './change-cache.ts';

export type SessionRowDb = typeof schema.sessions.$inferSelect;
export type NewSession = typeof schema.sessions.$inferInsert;

const { sessions, subjects } = schema;

/** Movement trials of the session in the outer query: not trashed, not calibration or neutral (qualified names, see below). */
const reservedNames = sql.raw(RESERVED_TRIAL_NAMES.map((name) => `'${name}'`).join(', '));
const countedTrials = sql`t.session_id = "sessions"."id" and t.trashed = false and t.name not in (${reservedNames})`;
// Correlated subqueries name their columns in full: Drizzle leaves columns unqualified in single-table selects.
const trialsCount = sql<number>`(select count(*)::int from trials t where ${countedTrials})`;
const sessionName = sql<string>`coalesce(nullif("sessions"."meta"->>'sessionName', ''), "sessions"."id"::text)`;

const sortExpressions = {
  id: sql`"sessions"."id"`,
  sessionName,
  name: sql`"subjects"."name"`,
  trials_count: trialsCount,
  created_at: sql`"sessions"."created_at"`,
  trashed: sql`"sessions"."trashed"`,
} as const;

export interface SessionListFilter {
  /** Whose sessions: the owner's own, or (for shared viewing) any owner's. */
  userId?: number;
  ids?: string[];
  subjectId?: number;
  includeTrashed: boolean;
  onlyTrashed: boolean;
  /** What the recycle bin shows: trashed sessions and sessions holding a trashed trial (instead of the two above). */
  inBin?: boolean;
  skipNoTrials: boolean;
  search?: string;
  sort: keyof typeof sortExpressions;
  sortDesc: boolean;
  start: number;
  quantity: number;
}

/** The columns a list row shows (presenters.ts toSessionRow): not the tokens, not the owner, not the whole meta. */
const listedColumns = {
  id: sessions.id,
  subjectId: sessions.subjectId,
  createdAt: sessions.createdAt,
  trashed: sessions.trashed,
  trashedAt: sessions.trashedAt,
  public: sessions.public,
};

export interface SessionListItem {
  session: Pick<SessionRowDb, keyof typeof listedColumns>;
  /** The session's name, or its id when it has none (as presenters.ts sessionNameOf). */
  sessionName: string;
  subjectName: string | null;
  trialsCount: number;
}

export interface SessionListPage {
  items: SessionListItem[];
  total: number;
}

/** Sessions' rows; a user's own lists come through `listCache` when there is one (change-cache.ts). */
export function createSessionsRepository(db: Database, listCache?: ChangeCache<SessionListPage>) {
  /** The filter's conditions, its values as placeholders (named as in `placeholderValues`). */
  function conditionsOf(filter: SessionListFilter): SQL | undefined {
    const conditions: SQL[] = [];
    if (filter.userId !== undefined) conditions.push(eq(sessions.userId, sql.placeholder('userId')));
    if (filter.ids)
      conditions.push(
        filter.ids.length
          ? inArray(
              sessions.id,
              filter.ids.map((_, index) => sql.placeholder(`id${index}`)),
            )
          : sql`false`,
      );
    if (filter.subjectId !== undefined) conditions.push(eq(sessions.subjectId, sql.placeholder('subjectId')));
    if (filter.inBin)
      conditions.push(
        sql`("sessions"."trashed" or exists (select 1 from trials t where t.session_id = "sessions"."id" and t.trashed))`,
      );
    else if (filter.onlyTrashed) conditions.push(eq(sessions.trashed, true));
    else if (!filter.includeTrashed) conditions.push(eq(sessions.trashed, false));
    if (filter.skipNoTrials) conditions.push(sql`exists (select 1 from trials t where ${countedTrials})`);
    if (filter.search) {
      const pattern = sql.placeholder('pattern');
      conditions.push(
        or(
          sql`"sessions"."meta"->>'sessionName' ilike ${pattern}`,
          ilike(subjects.name, pattern),
          sql`"sessions"."id"::text ilike ${pattern}`,
        )!,
      );
    }
    return and(...conditions);
  }

  function placeholderValues(filter: SessionListFilter): Record<string, unknown> {
    return {
      userId: filter.userId,
      subjectId: filter.subjectId,
      pattern: filter.search && `%${filter.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`,
      start: filter.start,
      quantity: filter.quantity,
      ...Object.fromEntries((filter.ids ?? []).map((id, index) => [`id${index}`, id])),
    };
  }

  /**
   * The page and the number of matching sessions in one query (a window count over the filtered rows), built
   * once per shape of filter (which conditions, sort, whole list or a page) and prepared: the list is the
   * app's most frequent call, and building a query costs more than PostgreSQL takes to answer it.
   */
  const pageQueries = new Map<string, ReturnType<typeof preparePageQuery>>();
  function preparePageQuery(filter: SessionListFilter, name: string) {
    const order = sortExpressions[filter.sort];
    const query = db
      .select({
        session: listedColumns,
        sessionName,
        subjectName: subjects.name,
        trialsCount,
        total: sql<number>`(count(*) over ())::int`,
      })
      .from(sessions)
      .leftJoin(subjects, eq(sessions.subjectId, subjects.id))
      .where(conditionsOf(filter))
      .orderBy(filter.sortDesc ? sql`${order} desc nulls last` : sql`${order} asc nulls last`, asc(sessions.id))
      .offset(sql.placeholder('start'));
    return (filter.quantity === -1 ? query : query.limit(sql.placeholder('quantity'))).prepare(name);
  }

  async function readList(filter: SessionListFilter): Promise<SessionListPage> {
    const shape = JSON.stringify({
      ...filter,
      userId: filter.userId !== undefined,
      ids: filter.ids?.length,
      subjectId: filter.subjectId !== undefined,
      search: Boolean(filter.search),
      start: undefined,
      quantity: filter.quantity === -1,
    });
    let pageQuery = pageQueries.get(shape);
    if (!pageQuery) {
      pageQuery = preparePageQuery(filter, `session_list_${pageQueries.size}`);
      pageQueries.set(shape, pageQuery);
    }
    const values = placeholderValues(filter);
    const rows = await pageQuery.execute(values);
    const items = rows.map(({ total: _total, ...item }) => item);
    if (rows.length > 0) return { items, total: rows[0].total };
    // A page past the end has no row to carry the count.
    if (filter.start === 0) return { items, total: 0 };
    const [{ total }] = await db
      .select({ total: sql<number>`count(*)::int` })
      .from(sessions)
      .leftJoin(subjects, eq(sessions.subjectId, subjects.id))
      .where(conditionsOf(filter))
      .execute(values);
    return { items, total };
  }

  return {
    async findById(id: string): Promise<SessionRowDb | undefined> {
      const [row] = await db.select().from(sessions).where(eq(sessions.id, id));
      return row;
    },
    async findByPairingToken(token: string): Promise<SessionRowDb | undefined> {
      const [row] = await db.select().from(sessions).where(eq(sessions.pairingToken, token));
      return row;
    },
    async insert(session: NewSession): Promise<SessionRowDb> {
      const [row] = await db.insert(sessions).values(session).returning();
      return row;
    },
    /** The user's newest session that nothing was done in: no trial (even trashed), no phone, no subject, no name, not public or trashed. */
    async newestEmpty(userId: number): Promise<SessionRowDb | undefined> {
      const [row] = await db
        .select()
        .from(sessions)
        .where(
          and(
            eq(sessions.userId, userId),
            isNull(sessions.subjectId),
            eq(sessions.public, false),
            eq(sessions.trashed, false),
            sql`coalesce("sessions"."meta"->>'sessionName', '') = ''`,
            sql`not exists (select 1 from ${schema.trials} t where t.session_id = "sessions"."id")`,
            sql`not exists (select 1 from ${schema.sessionDevices} d where d.session_id = "sessions"."id")`,
          ),
        )
        .orderBy(desc(sessions.createdAt))
        .limit(1);
      return row;
    },
    async update(id: string, changes: Partial<NewSession>): Promise<SessionRowDb> {
      const [row] = await db
        .update(sessions)
        .set({ ...changes, updatedAt: new Date() })
        .where(eq(sessions.id, id))
        .returning();
      return row;
    },
    async remove(id: string): Promise<void> {
      await db.delete(sessions).where(eq(sessions.id, id));
    },
    async trialsCount(id: string): Promise<number> {
      const [row] = await db.select({ count: trialsCount }).from(sessions).where(eq(sessions.id, id));
      return row?.count ?? 0;
    },
    async subjectName(subjectId: number | null): Promise<string | null> {
      if (subjectId === null) return null;
      const [row] = await db.select({ name: subjects.name }).from(subjects).where(eq(subjects.id, subjectId));
      return row?.name ?? null;
    },
    /** A page of sessions and how many match the filter in all. */
    list(filter: SessionListFilter): Promise<SessionListPage> {
      const { userId } = filter;
      if (!listCache || userId === undefined) return readList(filter);
      return listCache.get(
        JSON.stringify(filter),
        () => readList(filter),
        () => userId,
      );
    },
    async idsOfUser(userId: number): Promise<string[]> {
      const rows = await db.select({ id: sessions.id }).from(sessions).where(eq(sessions.userId, userId));
      return rows.map((row) => row.id);
    },
    async idsOfSubject(subjectId: number): Promise<string[]> {
      const rows = await db.select({ id: sessions.id }).from(sessions).where(eq(sessions.subjectId, subjectId));
      return rows.map((row) => row.id);
    },
    async trashedBefore(cutoff: Date): Promise<SessionRowDb[]> {
      return db
        .select()
        .from(sessions)
        .where(and(eq(sessions.trashed, true), isNotNull(sessions.trashedAt), lt(sessions.trashedAt, cutoff)));
    },
  };
}

export type SessionsRepository = ReturnType<typeof createSessionsRepository>;
