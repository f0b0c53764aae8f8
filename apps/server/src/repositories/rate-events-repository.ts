import { eq, inArray, lte, sql } from 'drizzle-orm';
import type { Database } from '@kinetrace/db';
import { rateLimitEvents } from '@kinetrace/db/schema';

/** Each key's event times (milliseconds); a key without events is absent. */
export type EventsByKey = Map<string, number[]>;

/** `stamps_ms` without the times at or before `keepAfterMs`, then `timeMs` added. */
const appended = (keepAfterMs: number, timeMs: number) =>
  sql`array_append(array(select stamp from unnest(${rateLimitEvents.stampsMs}) as stamp where stamp > ${keepAfterMs}), ${timeMs}::bigint)`;

/**
 * The rate limits' event times, in the database so that every server process on it counts the same events.
 * Each call is one statement, but for `appendIfAllowed`, a transaction whose row locks make two servers
 * counting under one key at once take turns.
 */
export function createRateEventsRepository(db: Database) {
  const byKey = (rows: { key: string; stampsMs: number[] }[]): EventsByKey =>
    new Map(rows.map((row) => [row.key, row.stampsMs.map(Number)]));

  return {
    async read(keys: string[]): Promise<EventsByKey> {
      return byKey(
        await db
          .select({ key: rateLimitEvents.key, stampsMs: rateLimitEvents.stampsMs })
          .from(rateLimitEvents)
          .where(inArray(rateLimitEvents.key, keys)),
      );
    },

    /** Adds an event at `timeMs` under each key, dropping its events at or before `keepAfterMs`. */
    async append(keys: string[], timeMs: number, keepAfterMs: number): Promise<void> {
      await db
        .insert(rateLimitEvents)
        .values(keys.map((key) => ({ key, stampsMs: [timeMs], lastMs: timeMs })))
        .onConflictDoUpdate({
          target: rateLimitEvents.key,
          set: { stampsMs: appended(keepAfterMs, timeMs), lastMs: sql`excluded.last_ms` },
        });
    },

    /**
     * Reads the keys' events with their rows locked, and appends an event at `timeMs` under every key when
     * `allowed` says so: nobody else counts under these keys in between. Answers what `allowed` answered.
     */
    async appendIfAllowed<T>(
      keys: string[],
      timeMs: number,
      keepAfterMs: number,
      decide: (events: EventsByKey) => { allowed: boolean; answer: T },
    ): Promise<T> {
      return db.transaction(async (tx) => {
        // The upsert locks each key's row, made empty when it had none; sorted keys lock in one order (no deadlock).
        const locked = await tx
          .insert(rateLimitEvents)
          .values([...keys].sort().map((key) => ({ key, stampsMs: [], lastMs: timeMs })))
          .onConflictDoUpdate({ target: rateLimitEvents.key, set: { key: sql`excluded.key` } })
          .returning({ key: rateLimitEvents.key, stampsMs: rateLimitEvents.stampsMs });
        const { allowed, answer } = decide(byKey(locked.filter((row) => row.stampsMs.length > 0)));
        if (allowed) {
          await tx
            .update(rateLimitEvents)
            .set({ stampsMs: appended(keepAfterMs, timeMs), lastMs: timeMs })
            .where(inArray(rateLimitEvents.key, keys));
        }
        return answer;
      });
    },

    async forget(key: string): Promise<void> {
      await db.delete(rateLimitEvents).where(eq(rateLimitEvents.key, key));
    },

    /** Drops the keys whose latest event is at or before `lastBeforeMs`. */
    async removeExpired(lastBeforeMs: number): Promise<void> {
      await db.delete(rateLimitEvents).where(lte(rateLimitEvents.lastMs, lastBeforeMs));
    },
  };
}

export type RateEventsRepository = ReturnType<typeof createRateEventsRepository>;
