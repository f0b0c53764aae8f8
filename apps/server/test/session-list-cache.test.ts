/**
 * The session list and the sign-in lookup are kept in memory on the embedded database (issue 13 "Load",
 * repositories/change-cache.ts). Each test reads the list (or calls with a token) before a write, so
 * that a kept copy exists, and again after it: a copy kept past the write fails the test. The same
 * checks run on PostgreSQL, where reads are only shared while they run (shared-reads.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Session, SessionRow } from '@kinetrace/contracts';
import { sessionWithSubject, subjectBody } from './support/owned-data.ts';
import { seedTrial } from './support/seed.ts';
import { authHeader, startTestApp, testBackends, verifiedUser, type TestApp } from './support/test-app.ts';

const backends = await testBackends();

describe.each(backends)('session list and sign-in after every kind of write on %s', (backend) => {
  let test: TestApp;
  let owner: Awaited<ReturnType<typeof verifiedUser>>;

  beforeAll(async () => {
    test = await startTestApp(backend);
    owner = await verifiedUser(test);
  });
  afterAll(async () => {
    await test?.close();
  });

  const call = (method: 'GET' | 'POST' | 'PUT' | 'PATCH', url: string, payload?: object, token = owner.token) =>
    test.call({ method, url, payload, headers: authHeader(token) });
  /** The caller's list; an anonymous caller (a token that no longer signs in) gets an empty one. */
  const list = async (body: object = {}, token = owner.token) => {
    const response = await call('POST', '/api/sessions/valid/', body, token);
    expect(response.statusCode).toBe(200);
    return response.json() as { sessions: SessionRow[]; total: number };
  };
  /** The session's row in the owner's whole list (trashed included), or undefined. */
  const rowOf = async (id: string) =>
    (await list({ quantity: -1, include_trashed: true })).sessions.find((row) => row.id === id);
  const newSession = async () => ((await call('GET', '/api/sessions/new/')).json() as Session[])[0];

  it('shows a session created, renamed, made public, given a subject, trashed, restored and removed', async () => {
    const before = (await list()).total;
    const session = await newSession();
    expect((await list()).total).toBe(before + 1);

    await call('POST', `/api/sessions/${session.id}/rename/`, { sessionNewName: 'knee_study' });
    expect(await rowOf(session.id)).toMatchObject({ sessionName: 'knee_study' });
    await call('GET', `/api/sessions/${session.id}/set_metadata/?settings_session_name=hip_study`);
    expect(await rowOf(session.id)).toMatchObject({ sessionName: 'hip_study' });

    await call('PATCH', `/api/sessions/${session.id}/`, { public: true });
    expect(await rowOf(session.id)).toMatchObject({ public: true });

    const subject = (await call('POST', '/api/subjects/', { ...subjectBody, name: 'Runner' })).json() as {
      id: number;
    };
    await call('GET', `/api/sessions/${session.id}/set_subject/?subject_id=${subject.id}`);
    expect(await rowOf(session.id)).toMatchObject({ subject: subject.id, name: 'Runner' });

    await call('POST', `/api/sessions/${session.id}/trash/`);
    expect((await list()).sessions.map((row) => row.id)).not.toContain(session.id);
    expect((await list({ only_trashed: true })).sessions.map((row) => row.id)).toEqual([session.id]);
    await call('POST', `/api/sessions/${session.id}/restore/`);
    expect((await list()).sessions.map((row) => row.id)).toContain(session.id);
    expect((await list({ only_trashed: true })).total).toBe(0);

    expect((await call('POST', `/api/sessions/${session.id}/permanent_remove/`)).statusCode).toBe(204);
    expect(await rowOf(session.id)).toBeUndefined();
    expect((await list()).total).toBe(before);
  });

  it('counts trials as they are recorded or processed, renamed, trashed, restored and removed', async () => {
    const session = await newSession();
    expect(await rowOf(session.id)).toMatchObject({ trials_count: 0 });
    expect((await list({ skip_no_trials: true, quantity: -1 })).sessions.map((row) => row.id)).not.toContain(
      session.id,
    );

    // Written straight to the database, as recording and the processing runner write trials.
    const trialId = await seedTrial(test, session.id, { name: 'walk', status: 'processing' });
    expect(await rowOf(session.id)).toMatchObject({ trials_count: 1 });
    expect((await list({ skip_no_trials: true, quantity: -1 })).sessions.map((row) => row.id)).toContain(session.id);
    await seedTrial(test, session.id, { name: 'calibration' });
    expect(await rowOf(session.id)).toMatchObject({ trials_count: 1 });

    await call('POST', `/api/trials/${trialId}/trash/`);
    expect(await rowOf(session.id)).toMatchObject({ trials_count: 0 });
    await call('POST', `/api/trials/${trialId}/restore/`);
    expect(await rowOf(session.id)).toMatchObject({ trials_count: 1 });
    expect((await call('POST', `/api/trials/${trialId}/permanent_remove/`)).statusCode).toBe(204);
    expect(await rowOf(session.id)).toMatchObject({ trials_count: 0 });
  });

  it("shows a subject's new name, and no name once the subject is removed", async () => {
    const { session, subject } = await sessionWithSubject(test, owner.token, { ...subjectBody, name: 'Before' });
    expect(await rowOf(session.id)).toMatchObject({ name: 'Before' });
    await call('PUT', `/api/subjects/${subject.id}/`, { ...subjectBody, name: 'After' });
    expect(await rowOf(session.id)).toMatchObject({ name: 'After' });
    await call('POST', `/api/subjects/${subject.id}/trash/`);
    expect((await call('POST', `/api/subjects/${subject.id}/permanent_remove/`)).statusCode).toBe(204);
    expect(await rowOf(session.id)).toMatchObject({ subject: null, name: null });
  });

  it('sees a write made by any statement on the database, as another process would make it', async () => {
    const session = await newSession();
    expect(await rowOf(session.id)).toMatchObject({ public: false });
    await test.backends.database.executeSql('update sessions set public = true where id = $1', [session.id]);
    expect(await rowOf(session.id)).toMatchObject({ public: true });
  });

  it("keeps each user's list their own", async () => {
    const other = await verifiedUser(test);
    const mine = (await list()).total;
    expect((await list({}, other.token)).total).toBe(0);
    await call('GET', '/api/sessions/new/', undefined, other.token);
    expect((await list({}, other.token)).total).toBe(1);
    expect((await list()).total).toBe(mine);
  });

  it('answers a list asked for while a write is under way, and the new state to one asked after it', async () => {
    const session = await newSession();
    const reads = Array.from({ length: 10 }, () => rowOf(session.id));
    const renamed = call('POST', `/api/sessions/${session.id}/rename/`, { sessionNewName: 'during' });
    const during = await Promise.all([...reads, renamed.then(() => rowOf(session.id))]);
    expect(during.at(-1)).toMatchObject({ sessionName: 'during' });
    expect(during.every((row) => row?.id === session.id)).toBe(true);
  });

  it('refuses a login at once when it is ended, revoked by any statement, or its user changes', async () => {
    const user = await verifiedUser(test);
    expect((await call('GET', '/api/sessions/new/', undefined, user.token)).statusCode).toBe(200);
    expect((await call('POST', '/api/logout/', undefined, user.token)).statusCode).toBe(200);
    expect((await call('GET', '/api/me/', undefined, user.token)).statusCode).toBe(401);

    const second = await verifiedUser(test);
    await list({}, second.token);
    await test.backends.database.executeSql('update auth_tokens set revoked_at = now() where user_id = $1', [
      second.userId,
    ]);
    expect((await call('GET', '/api/me/', undefined, second.token)).statusCode).toBe(401);

    const third = await verifiedUser(test);
    expect((await call('GET', '/api/me/', undefined, third.token)).json()).toMatchObject({ username: third.username });
    await test.backends.database.executeSql("update users set username = 'renamed_' || id where id = $1", [
      third.userId,
    ]);
    expect((await call('GET', '/api/me/', undefined, third.token)).json()).toMatchObject({
      username: `renamed_${third.userId}`,
    });
  });

  it('refuses a login once it expires, though it was just used', async () => {
    const user = await verifiedUser(test);
    await list({}, user.token);
    const [{ expires_at }] = (
      await test.backends.database.executeSql('select expires_at from auth_tokens where user_id = $1', [user.userId])
    ).rows as { expires_at: Date }[];
    test.clock.offsetMs = new Date(expires_at).getTime() - Date.now() + 1000;
    try {
      expect((await call('GET', '/api/me/', undefined, user.token)).statusCode).toBe(401);
    } finally {
      test.clock.offsetMs = 0;
    }
  });
});
