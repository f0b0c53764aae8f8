import { eq } from 'drizzle-orm';
import { schema } from '@kinetrace/db';
import type { TestApp } from './test-app.ts';

/**
 * Trials as recording and processing will leave them (those calls arrive with the capture issue):
 * rows plus files in the file store, written through the same backends the app uses.
 */
/**
 * Creation times strictly in the order of seeding: trials are listed by creation time, and rows inserted
 * within the same clock tick (PGlite's clock is coarse) would otherwise tie and list in any order.
 */
let lastCreatedAt = 0;
function nextCreatedAt(): Date {
  lastCreatedAt = Math.max(Date.now(), lastCreatedAt + 1);
  return new Date(lastCreatedAt);
}

export async function seedTrial(
  test: TestApp,
  sessionId: string,
  trial: {
    name: string;
    status?: string;
    videos?: { deviceId: string; bytes: Buffer; extension?: string; parameters?: Record<string, unknown> }[];
    results?: { tag: string; fileName: string; bytes: Buffer; meta?: Record<string, unknown> }[];
    meta?: Record<string, unknown>;
  },
): Promise<string> {
  const { db } = test.backends.database;
  const [row] = await db
    .insert(schema.trials)
    .values({
      sessionId,
      name: trial.name,
      status: trial.status ?? 'done',
      createdAt: nextCreatedAt(),
      ...(trial.meta && { meta: trial.meta }),
    })
    .returning();
  for (const video of trial.videos ?? []) {
    const key = `sessions/${sessionId}/trials/${row.id}/videos/${video.deviceId}.${video.extension ?? 'mp4'}`;
    await test.backends.files.put(key, video.bytes);
    await db.insert(schema.trialVideos).values({
      trialId: row.id,
      deviceId: video.deviceId,
      storageKey: key,
      parameters: video.parameters ?? { device: { model: 'Pixel 8' } },
    });
  }
  for (const result of trial.results ?? []) {
    const key = `sessions/${sessionId}/trials/${row.id}/results/${result.tag}/${result.fileName}`;
    await test.backends.files.put(key, result.bytes);
    await db
      .insert(schema.trialResults)
      .values({ trialId: row.id, tag: result.tag, storageKey: key, meta: result.meta ?? null });
  }
  return row.id;
}

/** Moves a row's trash date into the past, as if it had been trashed `days` ago. */
export async function backdateTrash(
  test: TestApp,
  table: 'sessions' | 'trials' | 'subjects',
  id: string | number,
  days: number,
) {
  const { db } = test.backends.database;
  const trashedAt = new Date(Date.now() - days * 86_400_000);
  if (table === 'sessions')
    await db
      .update(schema.sessions)
      .set({ trashedAt })
      .where(eq(schema.sessions.id, String(id)));
  if (table === 'trials')
    await db
      .update(schema.trials)
      .set({ trashedAt })
      .where(eq(schema.trials.id, String(id)));
  if (table === 'subjects')
    await db
      .update(schema.subjects)
      .set({ trashedAt })
      .where(eq(schema.subjects.id, Number(id)));
}
