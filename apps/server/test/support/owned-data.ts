import { eq } from 'drizzle-orm';
import type { Session, Subject } from '@kinetrace/contracts';
import { schema } from '@kinetrace/db';
import type { OwnedIds } from './openapi.ts';
import { seedTrial } from './seed.ts';
import { authHeader, verifiedUser, type TestApp } from './test-app.ts';

/** A valid subject, for the subject routes' bodies. */
export const subjectBody = {
  name: 'Owned',
  weight: 70,
  height: 1.7,
  birth_year: 1980,
  subject_tags: ['unimpaired'],
  terms: true,
};

/** A new session of the user holding `token`, with a new subject (`body`) set on it. */
export async function sessionWithSubject(
  test: TestApp,
  token: string,
  body: Record<string, unknown> = subjectBody,
): Promise<{ session: Session; subject: Subject }> {
  const headers = authHeader(token);
  const session = ((await test.call({ method: 'GET', url: '/api/sessions/new/', headers })).json() as Session[])[0];
  const subject = (
    await test.call({ method: 'POST', url: '/api/subjects/', headers, payload: body })
  ).json() as Subject;
  await test.call({ method: 'GET', url: `/api/sessions/${session.id}/set_subject/?subject_id=${subject.id}`, headers });
  return { session, subject };
}

export interface OwnedData {
  /** The owner's and another verified user's authorization headers. */
  headersOf: { owner: Record<string, string>; other: Record<string, string> };
  ids: OwnedIds;
  shareTokens: { session: string; subject: string };
}

/**
 * What the whole-API probes (authorization matrix, fuzz) need for every path to name something real:
 * an owner with a session, its subject, a processed `walk` trial, calibration and neutral trials with
 * their images, and an async download task of theirs; and another verified user.
 */
export async function seedOwnedData(test: TestApp): Promise<OwnedData> {
  const owner = await verifiedUser(test);
  const headersOf = { owner: authHeader(owner.token), other: authHeader((await verifiedUser(test)).token) };
  const { session, subject } = await sessionWithSubject(test, owner.token);
  const trialId = await seedTrial(test, session.id, {
    name: 'walk',
    results: [{ tag: 'ik_results', fileName: 'walk.mot', bytes: Buffer.from('x') }],
  });
  for (const [name, tag] of [
    ['calibration', 'calibration-img'],
    ['neutral', 'neutral-img'],
  ] as const) {
    await seedTrial(test, session.id, {
      name,
      results: [{ tag, fileName: `${name}.jpg`, bytes: Buffer.from('jpeg') }],
    });
  }
  const [row] = await test.backends.database.db
    .select()
    .from(schema.sessions)
    .where(eq(schema.sessions.id, session.id));
  const download = await test.call({
    method: 'GET',
    url: `/api/sessions/${session.id}/async-download/`,
    headers: headersOf.owner,
  });
  return {
    headersOf,
    ids: {
      session: session.id,
      subject: String(subject.id),
      trial: trialId,
      user: String(owner.userId),
      pairingToken: row.pairingToken,
      task: (download.json() as { task_id: string }).task_id,
    },
    shareTokens: { session: row.shareToken!, subject: subject.share_token! },
  };
}
