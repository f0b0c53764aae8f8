import { and, eq, gt, sql } from 'drizzle-orm';
import { schema, type Database } from '@kinetrace/db';

export type DeviceRow = typeof schema.sessionDevices.$inferSelect;
const { sessionDevices } = schema;

export function createDevicesRepository(db: Database) {
  return {
    /** Registers the phone with the session, or refreshes it when it pairs again. */
    async upsert(
      sessionId: string,
      deviceId: string,
      capabilities: Record<string, unknown>,
      now: Date,
    ): Promise<DeviceRow> {
      const [row] = await db
        .insert(sessionDevices)
        .values({ sessionId, deviceId, capabilities, connectedAt: now, lastSeenAt: now })
        .onConflictDoUpdate({
          target: [sessionDevices.sessionId, sessionDevices.deviceId],
          set: { capabilities, lastSeenAt: now },
        })
        .returning();
      return row;
    },
    /** The heartbeat; false when the phone never paired with this session. */
    async touch(sessionId: string, deviceId: string, now: Date): Promise<boolean> {
      const rows = await db
        .update(sessionDevices)
        .set({ lastSeenAt: now })
        .where(and(eq(sessionDevices.sessionId, sessionId), eq(sessionDevices.deviceId, deviceId)))
        .returning({ id: sessionDevices.id });
      return rows.length > 0;
    },
    async find(sessionId: string, deviceId: string): Promise<DeviceRow | undefined> {
      const [row] = await db
        .select()
        .from(sessionDevices)
        .where(and(eq(sessionDevices.sessionId, sessionId), eq(sessionDevices.deviceId, deviceId)));
      return row;
    },
    /** Pairs another session with the same phones (the next subject's session), as they were last seen. */
    async copyToSession(fromSessionId: string, toSessionId: string): Promise<void> {
      const rows = await db.select().from(sessionDevices).where(eq(sessionDevices.sessionId, fromSessionId));
      if (rows.length === 0) return;
      await db
        .insert(sessionDevices)
        .values(
          rows.map(({ deviceId, capabilities, connectedAt, lastSeenAt }) => ({
            sessionId: toSessionId,
            deviceId,
            capabilities,
            connectedAt,
            lastSeenAt,
          })),
        )
        .onConflictDoNothing();
    },
    /** Phones seen since `since`. */
    async connected(sessionId: string, since: Date): Promise<DeviceRow[]> {
      return db
        .select()
        .from(sessionDevices)
        .where(and(eq(sessionDevices.sessionId, sessionId), gt(sessionDevices.lastSeenAt, since)))
        .orderBy(sql`${sessionDevices.connectedAt}`);
    },
  };
}

export type DevicesRepository = ReturnType<typeof createDevicesRepository>;
