import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import { schema, type Database } from '@kinetrace/db';

const { workerTokens, trials } = schema;

/** A live worker token as its holder is known by. */
export interface Worker {
  id: number;
  name: string;
}

/** A worker token as the operator's list shows it: never its secret. */
export interface WorkerTokenListing {
  name: string;
  createdAt: Date;
  lastSeenAt: Date | null;
  revokedAt: Date | null;
  /** The trials it is processing now (its leases). */
  trialIds: string[];
}

/** Remote workers' tokens (stored as hashes) and what each is doing. */
export function createWorkerTokensRepository(db: Database) {
  return {
    /** A new live token named `name`; false when a live one has that name already. */
    async create(name: string, tokenHash: string): Promise<boolean> {
      const made = await db
        .insert(workerTokens)
        .values({ name, tokenHash })
        .onConflictDoNothing()
        .returning({ id: workerTokens.id });
      return made.length > 0;
    },

    /** Revokes the live token named `name`: false when there is none. */
    async revoke(name: string, at: Date): Promise<boolean> {
      const revoked = await db
        .update(workerTokens)
        .set({ revokedAt: at })
        .where(and(eq(workerTokens.name, name), isNull(workerTokens.revokedAt)))
        .returning({ id: workerTokens.id });
      return revoked.length > 0;
    },

    /** The worker holding a live token of this hash, its contact recorded; undefined for any other. */
    async contact(tokenHash: string, at: Date): Promise<Worker | undefined> {
      const [worker] = await db
        .update(workerTokens)
        .set({ lastSeenAt: at })
        .where(and(eq(workerTokens.tokenHash, tokenHash), isNull(workerTokens.revokedAt)))
        .returning({ id: workerTokens.id, name: workerTokens.name });
      return worker;
    },

    async list(): Promise<WorkerTokenListing[]> {
      const rows = await db.select().from(workerTokens).orderBy(asc(workerTokens.createdAt), asc(workerTokens.id));
      const leases = await db
        .select({ id: trials.id, worker: sql<string>`${trials.meta}->>'processing_worker'` })
        .from(trials)
        .where(sql`${trials.meta} ? 'processing_worker'`);
      return rows.map((row) => ({
        name: row.name,
        createdAt: row.createdAt,
        lastSeenAt: row.lastSeenAt,
        revokedAt: row.revokedAt,
        trialIds: leases.filter((lease) => lease.worker === String(row.id)).map((lease) => lease.id),
      }));
    },
  };
}

export type WorkerTokensRepository = ReturnType<typeof createWorkerTokensRepository>;
