import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { DATA_SHARING_OPTIONS, RESULT_TAGS, type Session, type Subject } from '@kinetrace/contracts';
import { schema } from '@kinetrace/db';
import { archiveRateRules } from '../src/services/download-service.ts';
import { sessionWithSubject } from './support/owned-data.ts';
import { seedTrial } from './support/seed.ts';
import { authHeader, startTestApp, verifiedUser, type TestApp } from './support/test-app.ts';
import { unzip } from './support/unzip.ts';

const [, , PROCESSED_ONLY, NO_DATA] = DATA_SHARING_OPTIONS;

/**
 * Issue 13, loose end 2: the link to an archive prepared in the background is checked when it is
 * fetched, as signed media URLs are: once the asker may no longer download that archive (the session
 * made private, a trial trashed, the share link replaced, the data sharing narrowed, an account
 * deleted), the link stops; while they still may, it serves the archive.
 */
describe('async download links check the asker’s access when fetched', () => {
  let test: TestApp;
  let owner: Awaited<ReturnType<typeof verifiedUser>>;
  let ownerHeaders: Record<string, string>;
  let session: Session;
  let subject: Subject;
  let walkId: string;

  beforeAll(async () => {
    test = await startTestApp('pglite');
    owner = await verifiedUser(test);
    ownerHeaders = authHeader(owner.token);
    ({ session, subject } = await sessionWithSubject(test, owner.token));
    walkId = await seedTrial(test, session.id, {
      name: 'walk',
      results: [{ tag: RESULT_TAGS.ikResults, fileName: 'walk.mot', bytes: Buffer.from('knee_angle_r') }],
    });
    await sharing(PROCESSED_ONLY);
  });
  afterAll(async () => {
    await test?.close();
  });

  const get = (url: string, headers: Record<string, string> = {}) => test.call({ method: 'GET', url, headers });
  const post = (url: string, headers: Record<string, string>, payload?: Record<string, unknown>) =>
    test.call({ method: 'POST', url, headers, payload });
  function sharing(option: string) {
    return get(
      `/api/sessions/${session.id}/set_metadata/?settings_data_sharing=${encodeURIComponent(option)}`,
      ownerHeaders,
    );
  }
  const setPublic = (value: boolean) =>
    test.call({
      method: 'PATCH',
      url: `/api/sessions/${session.id}/`,
      headers: ownerHeaders,
      payload: { public: value },
    });

  /** Asks for an async download (`path` under /api, with its query) and waits for the link. */
  async function preparedLink(path: string, headers: Record<string, string> = {}): Promise<string> {
    const started = await get(`/api${path}`, headers);
    expect(started.statusCode, started.body).toBe(200);
    const taskId = (started.json() as { task_id: string }).task_id;
    let url = '';
    await expect
      .poll(
        async () => {
          const poll = await get(`/api/logs/${taskId}/on-ready/`, headers);
          if (poll.statusCode === 200) url = (poll.json() as { url: string }).url;
          return poll.statusCode;
        },
        { timeout: 30_000, interval: 100 },
      )
      .toBe(200);
    return url;
  }
  async function fetched(url: string) {
    const response = await get(url);
    return {
      status: response.statusCode,
      names: response.statusCode === 200 ? [...(await unzip(response.rawPayload)).keys()] : [],
    };
  }

  it('stops a visitor’s link while the session is private and while a trial in it is trashed', async () => {
    await setPublic(true);
    try {
      const link = await preparedLink(`/sessions/${session.id}/async-download/`);
      const served = await fetched(link);
      expect(served.status).toBe(200);
      expect(served.names.some((name) => name.endsWith('/walk.mot'))).toBe(true);

      await setPublic(false);
      expect((await fetched(link)).status).toBe(403);
      await setPublic(true);
      expect((await fetched(link)).status).toBe(200);

      await post(`/api/trials/${walkId}/trash/`, ownerHeaders);
      expect((await fetched(link)).status).toBe(403);
      await post(`/api/trials/${walkId}/restore/`, ownerHeaders);
      expect((await fetched(link)).status).toBe(200);

      await sharing(NO_DATA);
      const refused = await get(link);
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toEqual({ detail: 'This download is no longer available. Please prepare it again.' });
    } finally {
      await sharing(PROCESSED_ONLY);
      await setPublic(false);
    }
  });

  it('stops the link of a share-token holder once the token is replaced, for a session and for a subject', async () => {
    const [row] = await test.backends.database.db
      .select()
      .from(schema.sessions)
      .where(eq(schema.sessions.id, session.id));
    const sessionLink = await preparedLink(`/sessions/${session.id}/async-download/?share_token=${row.shareToken}`);
    const subjectLink = await preparedLink(
      `/subjects/${subject.id}/async-download/?share_token=${subject.share_token}`,
    );
    expect((await fetched(sessionLink)).status).toBe(200);
    expect((await fetched(subjectLink)).status).toBe(200);

    await test.backends.database.db
      .update(schema.sessions)
      .set({ shareToken: 'a-new-session-share-token' })
      .where(eq(schema.sessions.id, session.id));
    await test.backends.database.db
      .update(schema.subjects)
      .set({ shareToken: 'a-new-subject-share-token' })
      .where(eq(schema.subjects.id, subject.id));
    expect((await fetched(sessionLink)).status).toBe(403);
    expect((await fetched(subjectLink)).status).toBe(403);
  });

  it('stops the links of a deleted account: its own, and visitors’ of its public sessions', async () => {
    const other = await verifiedUser(test);
    const gone = await verifiedUser(test);
    const { session: goneSession } = await sessionWithSubject(test, gone.token);
    await seedTrial(test, goneSession.id, {
      name: 'walk',
      results: [{ tag: RESULT_TAGS.ikResults, fileName: 'walk.mot', bytes: Buffer.from('hip_flexion_r') }],
    });
    await test.call({
      method: 'PATCH',
      url: `/api/sessions/${goneSession.id}/`,
      headers: authHeader(gone.token),
      payload: { public: true },
    });
    const ownLink = await preparedLink(`/sessions/${goneSession.id}/async-download/`, authHeader(gone.token));
    const visitorLink = await preparedLink(`/sessions/${goneSession.id}/async-download/`, authHeader(other.token));
    expect((await fetched(ownLink)).status).toBe(200);
    expect((await fetched(visitorLink)).status).toBe(200);

    const deleted = await post('/api/delete-account/', authHeader(gone.token), { confirm: gone.username });
    expect(deleted.statusCode).toBe(200);
    expect((await fetched(ownLink)).status).toBe(403);
    expect((await fetched(visitorLink)).status).toBe(403);
    // Nor are the archives themselves kept: the deleted account's data leaves the disk with it.
    for (const link of [ownLink, visitorLink]) {
      const taskId = /\/downloads\/([0-9a-f-]{36})\//.exec(link)![1];
      expect(existsSync(join(test.dataDir, 'files', 'downloads', taskId))).toBe(false);
    }
  });

  it('keeps serving the owner’s link while nothing changed, and refuses one whose path was altered', async () => {
    const link = await preparedLink(`/sessions/${session.id}/async-download/`, ownerHeaders);
    expect((await fetched(link)).status).toBe(200);
    expect((await fetched(link)).status).toBe(200);
    expect((await fetched(link.replace(/\/session-[0-9a-f-]+\//, `/subject-${subject.id}/`))).status).toBe(403);
  });

  // Last: the archives it starts keep the job queue busy for a while.
  it('lets a visitor’s address prepare at most 30 archives an hour, without holding back other addresses or the owner', async () => {
    await setPublic(true);
    try {
      const start = (address: string, headers: Record<string, string> = {}) =>
        test.call({
          method: 'GET',
          url: `/api/sessions/${session.id}/async-download/`,
          headers,
          remoteAddress: address,
        });
      const { limit } = archiveRateRules.preparationsPerAsker;
      for (let attempt = 0; attempt < limit; attempt++) expect((await start('10.50.0.1')).statusCode).toBe(200);
      const refused = await start('10.50.0.1');
      expect(refused.statusCode).toBe(429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect((await start('10.50.0.2')).statusCode).toBe(200);
      expect((await start('10.50.0.1', ownerHeaders)).statusCode).toBe(200);
    } finally {
      await setPublic(false);
    }
  });
});
