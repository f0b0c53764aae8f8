import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Session, Subject } from '@kinetrace/contracts';
import { sessionWithSubject, subjectBody } from './support/owned-data.ts';
import { seedTrial } from './support/seed.ts';
import { authHeader, startTestApp, verifiedUser, type TestApp } from './support/test-app.ts';

/**
 * §6 for every data endpoint: the owner may do everything; a public session or a share token lets
 * anyone read but not change; everyone else gets 404 for private data (401 when a change is tried
 * without logging in), so private data does not reveal that it exists.
 */
type Caller = 'owner' | 'other' | 'anonymous';
interface Endpoint {
  name: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH';
  url: string;
  body?: unknown;
  kind: 'read' | 'write';
}

describe('permissions of every session, trial and subject endpoint', () => {
  let test: TestApp;
  const callers: Record<Caller, { token: string } | null> = { owner: null, other: null, anonymous: null };
  let session: Session;
  let subject: Subject;
  let trialId: string;
  let sessionShareToken: string;

  beforeAll(async () => {
    test = await startTestApp('pglite');
    callers.owner = await verifiedUser(test);
    callers.other = await verifiedUser(test);
    ({ session, subject } = await sessionWithSubject(test, callers.owner.token));
    trialId = await seedTrial(test, session.id, {
      name: 'walk',
      results: [{ tag: 'ik_results', fileName: 'walk.mot', bytes: Buffer.from('x') }],
    });
    const { db } = test.backends.database;
    const { schema } = await import('@kinetrace/db');
    const { eq } = await import('drizzle-orm');
    sessionShareToken = (await db.select().from(schema.sessions).where(eq(schema.sessions.id, session.id)))[0]
      .shareToken!;
  });
  afterAll(async () => {
    await test?.close();
  });

  const endpoints = (): Endpoint[] => [
    { name: 'read session', method: 'GET', url: `/api/sessions/${session.id}/`, kind: 'read' },
    { name: 'session settings', method: 'GET', url: `/api/sessions/${session.id}/get_session_settings/`, kind: 'read' },
    { name: 'download session', method: 'GET', url: `/api/sessions/${session.id}/download/`, kind: 'read' },
    { name: 'async session download', method: 'GET', url: `/api/sessions/${session.id}/async-download/`, kind: 'read' },
    { name: 'read trial', method: 'GET', url: `/api/trials/${trialId}/`, kind: 'read' },
    { name: 'trial tags', method: 'GET', url: `/api/trial-tags/${trialId}/get_tags_trial/`, kind: 'read' },
    { name: 'QR code', method: 'GET', url: `/api/sessions/${session.id}/get_qr/`, kind: 'write' },
    {
      name: 'make public',
      method: 'PATCH',
      url: `/api/sessions/${session.id}/`,
      body: { public: false },
      kind: 'write',
    },
    {
      name: 'rename session',
      method: 'POST',
      url: `/api/sessions/${session.id}/rename/`,
      body: { sessionNewName: 'renamed' },
      kind: 'write',
    },
    {
      name: 'set subject',
      method: 'GET',
      url: `/api/sessions/${session.id}/set_subject/?subject_id=${subject.id}`,
      kind: 'write',
    },
    { name: 'set metadata', method: 'GET', url: `/api/sessions/${session.id}/set_metadata/?cb_rows=4`, kind: 'write' },
    { name: 'trash session', method: 'POST', url: `/api/sessions/${session.id}/restore/`, kind: 'write' },
    {
      name: 'rename trial',
      method: 'POST',
      url: `/api/trials/${trialId}/rename/`,
      body: { trialNewName: 'walk' },
      kind: 'write',
    },
    {
      name: 'tag trial',
      method: 'POST',
      url: `/api/trials/${trialId}/modifyTags/`,
      body: { trialNewTags: ['walking'] },
      kind: 'write',
    },
    { name: 'restore trial', method: 'POST', url: `/api/trials/${trialId}/restore/`, kind: 'write' },
    { name: 'edit subject', method: 'PUT', url: `/api/subjects/${subject.id}/`, body: subjectBody, kind: 'write' },
    { name: 'restore subject', method: 'POST', url: `/api/subjects/${subject.id}/restore/`, kind: 'write' },
  ];

  const subjectEndpoints = (): Endpoint[] => [
    { name: 'read subject', method: 'GET', url: `/api/subjects/${subject.id}/`, kind: 'read' },
    { name: 'subject tags', method: 'GET', url: `/api/subject-tags/${subject.id}/get_tags_subject/`, kind: 'read' },
    { name: 'download subject', method: 'GET', url: `/api/subjects/${subject.id}/download/`, kind: 'read' },
    { name: 'async subject download', method: 'GET', url: `/api/subjects/${subject.id}/async-download/`, kind: 'read' },
  ];

  async function call(endpoint: Endpoint, caller: Caller, shareToken?: string) {
    const separator = endpoint.url.includes('?') ? '&' : '?';
    const url = shareToken ? `${endpoint.url}${separator}share_token=${shareToken}` : endpoint.url;
    const token = callers[caller];
    const response = await test.call({
      method: endpoint.method,
      url,
      headers: token ? authHeader(token.token) : {},
      payload: endpoint.body as Record<string, unknown>,
    });
    return response.statusCode;
  }

  const denied = (endpoint: Endpoint, caller: Caller) =>
    endpoint.kind === 'write' && caller === 'anonymous' ? 401 : 404;

  async function expectMatrix(list: Endpoint[], readAllowed: boolean, shareToken?: string) {
    const seen: string[] = [];
    for (const endpoint of list) {
      expect(await call(endpoint, 'owner', shareToken), `owner: ${endpoint.name}`).toBeLessThan(300);
      for (const caller of ['other', 'anonymous'] as const) {
        const status = await call(endpoint, caller, shareToken);
        const expected = endpoint.kind === 'read' && readAllowed ? 200 : denied(endpoint, caller);
        seen.push(`${caller} ${endpoint.name}: ${status}`);
        expect(status, `${caller}: ${endpoint.name}`).toBe(expected);
      }
    }
    return seen;
  }

  it('a private session: owner only', async () => {
    await expectMatrix([...endpoints(), ...subjectEndpoints()], false);
  });

  it('a public session: anyone reads it, only the owner changes it', async () => {
    await test.call({
      method: 'PATCH',
      url: `/api/sessions/${session.id}/`,
      headers: authHeader(callers.owner!.token),
      payload: { public: true },
    });
    try {
      await expectMatrix(
        endpoints().filter((endpoint) => endpoint.name !== 'make public'),
        true,
      );
      await expectMatrix(subjectEndpoints(), false); // the session being public does not expose the subject
      const listed = await test.call({
        method: 'POST',
        url: '/api/sessions/valid/',
        payload: { public_session_id: session.id },
      });
      expect((listed.json() as { sessions: { id: string }[] }).sessions.map((row) => row.id)).toEqual([session.id]);
      const other = (await test.call({ method: 'GET', url: `/api/sessions/${session.id}/` })).json() as Session;
      expect(other).toMatchObject({ is_owner: false, qrcode: null });
    } finally {
      await test.call({
        method: 'PATCH',
        url: `/api/sessions/${session.id}/`,
        headers: authHeader(callers.owner!.token),
        payload: { public: false },
      });
    }
  });

  it("the session's share token lets anyone read the session, never change it", async () => {
    await expectMatrix(endpoints(), true, sessionShareToken);
    await expectMatrix(endpoints(), false, 'not-the-token');
  });

  it("the subject's share token lets anyone read the subject and its sessions", async () => {
    const token = subject.share_token!;
    await expectMatrix(subjectEndpoints(), true, token);
    await expectMatrix(endpoints(), true, token);
    const listed = await test.call({
      method: 'POST',
      url: '/api/sessions/valid/',
      payload: { subject_id: subject.id, share_token: token },
    });
    expect((listed.json() as { total: number }).total).toBe(1);
    const withoutToken = await test.call({
      method: 'POST',
      url: '/api/sessions/valid/',
      payload: { subject_id: subject.id },
    });
    expect((withoutToken.json() as { total: number }).total).toBe(0);
  });

  it('lists need a login, and a trashed public session is the owner’s alone', async () => {
    expect((await test.call({ method: 'GET', url: '/api/subjects/' })).statusCode).toBe(401);
    expect((await test.call({ method: 'GET', url: '/api/sessions/new/' })).statusCode).toBe(401);
    const owner = authHeader(callers.owner!.token);
    await test.call({
      method: 'PATCH',
      url: `/api/sessions/${session.id}/`,
      headers: owner,
      payload: { public: true },
    });
    await test.call({ method: 'POST', url: `/api/sessions/${session.id}/trash/`, headers: owner });
    expect((await test.call({ method: 'GET', url: `/api/sessions/${session.id}/` })).statusCode).toBe(404);
    expect((await test.call({ method: 'GET', url: `/api/sessions/${session.id}/`, headers: owner })).statusCode).toBe(
      200,
    );
    await test.call({ method: 'POST', url: `/api/sessions/${session.id}/restore/`, headers: owner });
    await test.call({
      method: 'PATCH',
      url: `/api/sessions/${session.id}/`,
      headers: owner,
      payload: { public: false },
    });
  });

  it('permanent removal by anyone but the owner is refused, and the owner’s removes everything', async () => {
    for (const caller of ['other', 'anonymous'] as const) {
      for (const url of [
        `/api/trials/${trialId}/permanent_remove/`,
        `/api/sessions/${session.id}/permanent_remove/`,
        `/api/subjects/${subject.id}/permanent_remove/`,
      ]) {
        const token = callers[caller];
        const status = (await test.call({ method: 'POST', url, headers: token ? authHeader(token.token) : {} }))
          .statusCode;
        expect(status, `${caller} ${url}`).toBe(caller === 'anonymous' ? 401 : 404);
      }
    }
    const owner = authHeader(callers.owner!.token);
    expect(
      (await test.call({ method: 'POST', url: `/api/trials/${trialId}/permanent_remove/`, headers: owner })).statusCode,
    ).toBe(204);
    expect(
      (await test.call({ method: 'POST', url: `/api/sessions/${session.id}/permanent_remove/`, headers: owner }))
        .statusCode,
    ).toBe(204);
    expect(
      (await test.call({ method: 'POST', url: `/api/subjects/${subject.id}/permanent_remove/`, headers: owner }))
        .statusCode,
    ).toBe(204);
  });
});
