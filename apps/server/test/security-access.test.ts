import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INT4_MAX, type Session, type Subject } from '@kinetrace/contracts';
import { seedTrial } from './support/seed.ts';
import { authHeader, startTestApp, verifiedUser, type TestApp } from './support/test-app.ts';

/** Issue 13: what an outside probe found about ids, shared data and media, each closed by a check here. */
describe('security of ids, shared data and media', () => {
  let test: TestApp;
  let owner: Awaited<ReturnType<typeof verifiedUser>>;
  let ownerHeaders: Record<string, string>;
  let session: Session;
  let subject: Subject;

  beforeAll(async () => {
    test = await startTestApp('pglite');
    owner = await verifiedUser(test);
    ownerHeaders = authHeader(owner.token);
    session = ((await test.call({ method: 'GET', url: '/api/sessions/new/', headers: ownerHeaders })).json() as Session[])[0];
    subject = (
      await test.call({
        method: 'POST',
        url: '/api/subjects/',
        headers: ownerHeaders,
        payload: {
          name: 'P07',
          weight: 81.5,
          height: 1.83,
          birth_year: 1961,
          sex_at_birth: 'woman',
          gender: 'non-binary',
          subject_tags: ['knee-oa'],
          characteristics: 'left knee replacement',
          terms: true,
        },
      })
    ).json() as Subject;
    await test.call({ method: 'GET', url: `/api/sessions/${session.id}/set_subject/?subject_id=${subject.id}`, headers: ownerHeaders });
  });
  afterAll(async () => {
    await test?.close();
  });

  it('answers an id the database cannot hold as not found (path) or a field error (query, body), never 500', async () => {
    const tooLarge = INT4_MAX + 1;
    for (const headers of [ownerHeaders, {}]) {
      for (const url of [`/api/subjects/${tooLarge}/`, `/api/subjects/${tooLarge}/download/`, `/api/subject-tags/${tooLarge}/get_tags_subject/`, `/api/subjects/1e3/`]) {
        const response = await test.call({ method: 'GET', url, headers });
        expect(response.statusCode, url).toBe(404);
        expect(response.json()).toEqual({ detail: 'Not found.' });
      }
      const trashed = await test.call({ method: 'POST', url: `/api/subjects/${tooLarge}/trash/`, headers });
      expect(trashed.statusCode).toBe(404);
      const listed = await test.call({ method: 'POST', url: '/api/sessions/valid/', headers, payload: { subject_id: tooLarge } });
      expect(listed.statusCode).toBe(400);
      expect(listed.json()).toEqual({ subject_id: [expect.any(String)] });
    }
    const setSubject = await test.call({ method: 'GET', url: `/api/sessions/${session.id}/set_subject/?subject_id=${tooLarge}`, headers: ownerHeaders });
    expect(setSubject.statusCode).toBe(400);
    expect(Object.keys(setSubject.json() as object)).toEqual(['subject_id']);
    const notUuid = await test.call({ method: 'GET', url: '/api/sessions/not-a-session/', headers: ownerHeaders });
    expect(notUuid.statusCode).toBe(404);
  });

  it("gives the owner's user id to the owner only", async () => {
    await test.call({ method: 'PATCH', url: `/api/sessions/${session.id}/`, headers: ownerHeaders, payload: { public: true } });
    try {
      const asOwner = (await test.call({ method: 'GET', url: `/api/sessions/${session.id}/`, headers: ownerHeaders })).json() as Session;
      expect(asOwner.user).toBe(owner.userId);
      const other = await verifiedUser(test);
      for (const headers of [{}, authHeader(other.token)]) {
        const response = await test.call({ method: 'GET', url: `/api/sessions/${session.id}/`, headers });
        expect(response.statusCode).toBe(200);
        expect((response.json() as Session).user).toBeNull();
        expect(response.body).not.toMatch(new RegExp(`"user(_id)?":${owner.userId}\\b`));
      }
    } finally {
      await test.call({ method: 'PATCH', url: `/api/sessions/${session.id}/`, headers: ownerHeaders, payload: { public: false } });
    }
  });

  it("leaves no folder of a deleted account's files behind", async () => {
    const user = await verifiedUser(test);
    const headers = authHeader(user.token);
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
    const boundary = 'b0undary';
    const picture = await test.call({
      method: 'POST',
      url: '/api/update_profile_picture/',
      headers: { ...headers, 'content-type': `multipart/form-data; boundary=${boundary}` },
      payload: Buffer.concat([
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="profile_picture"; filename="p.png"\r\n\r\n`),
        png,
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]),
    });
    expect(picture.statusCode).toBe(200);
    const own = ((await test.call({ method: 'GET', url: '/api/sessions/new/', headers })).json() as Session[])[0];
    await seedTrial(test, own.id, { name: 'walk', results: [{ tag: 'ik_results', fileName: 'walk.mot', bytes: Buffer.from('x') }] });
    const userFolder = join(test.dataDir, 'files', 'users', String(user.userId));
    const sessionFolder = join(test.dataDir, 'files', 'sessions', own.id);
    expect(existsSync(userFolder)).toBe(true);
    expect(existsSync(sessionFolder)).toBe(true);
    const deleted = await test.call({ method: 'POST', url: '/api/delete-account/', headers, payload: { confirm: user.username } });
    expect(deleted.statusCode).toBe(200);
    expect(existsSync(userFolder)).toBe(false);
    expect(existsSync(sessionFolder)).toBe(false);
  });
});
