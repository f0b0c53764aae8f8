import { and, eq, sql } from 'drizzle-orm';
import type { Database } from '@kinetrace/db';
import { uploadLocks } from '@kinetrace/db/schema';

/** The database's clock `leaseS` seconds on: every server's leases expire by one clock. */
const leaseEnd = (leaseS: number) => sql`now() + make_interval(secs => ${leaseS})`;
const expired = sql`${uploadLocks.expiresAt} < now()`;

/** Upload locks shared by the server processes on one database (one statement each). */
export function createUploadLocksRepository(db: Database) {
  return {
    /**
     * Takes the upload's lock for `holder` when no one holds it or its holder's lease has passed, and answers
     * true; otherwise asks its holder to release it and answers false.
     */
    async takeOrAskRelease(uploadId: string, holder: string, leaseS: number): Promise<boolean> {
      const [row] = await db
        .insert(uploadLocks)
        .values({ uploadId, holder, expiresAt: leaseEnd(leaseS) })
        .onConflictDoUpdate({
          target: uploadLocks.uploadId,
          set: {
            holder: sql`case when ${expired} then excluded.holder else ${uploadLocks.holder} end`,
            expiresAt: sql`case when ${expired} then excluded.expires_at else ${uploadLocks.expiresAt} end`,
            releaseRequested: sql`not ${expired}`,
          },
        })
        .returning({ holder: uploadLocks.holder });
      return row.holder === holder;
    },

    /** Extends `holder`'s lease: answers whether another request asked for the lock, or undefined when `holder` lost it. */
    async renew(uploadId: string, holder: string, leaseS: number): Promise<{ releaseRequested: boolean } | undefined> {
      const [row] = await db
        .update(uploadLocks)
        .set({ expiresAt: leaseEnd(leaseS) })
        .where(and(eq(uploadLocks.uploadId, uploadId), eq(uploadLocks.holder, holder)))
        .returning({ releaseRequested: uploadLocks.releaseRequested });
      return row;
    },

    async release(uploadId: string, holder: string): Promise<void> {
      await db.delete(uploadLocks).where(and(eq(uploadLocks.uploadId, uploadId), eq(uploadLocks.holder, holder)));
    },
  };
}

export type UploadLocksRepository = ReturnType<typeof createUploadLocksRepository>;
