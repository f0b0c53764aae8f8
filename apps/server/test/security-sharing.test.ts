import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATA_SHARING_OPTIONS, RESULT_TAGS, type Session, type Subject, type Trial } from '@kinetrace/contracts';
import { writeKinetraceCameras } from '@kinetrace/mocap/camera/formats/index';
import { sessionWithSubject } from './support/owned-data.ts';
import { seedTrial } from './support/seed.ts';
import { testCamera } from './support/test-camera.ts';
import { authHeader, startTestApp, verifiedUser, type TestApp } from './support/test-app.ts';

const [IDENTIFIED_VIDEOS] = DATA_SHARING_OPTIONS;

/**
 * Issue 20, items 6 and 19: a subject's share link stops when the subject is trashed and can be
 * replaced or revoked by its owner; readers never see the names of the files the owner uploaded.
 */
describe("a subject's share link, and what readers see of uploaded files", () => {
  let test: TestApp;
  let ownerHeaders: Record<string, string>;
  let session: Session;
  let subject: Subject;

  const get = (url: string, headers: Record<string, string> = {}) => test.call({ method: 'GET', url, headers });
  const post = (url: string, headers = ownerHeaders) => test.call({ method: 'POST', url, headers });
  const subjectAction = async (action: string) => {
    const response = await post(`/api/subjects/${subject.id}/${action}/`);
    expect(response.statusCode, action).toBe(200);
    return response.json() as Subject;
  };

  beforeAll(async () => {
    test = await startTestApp('pglite');
    const owner = await verifiedUser(test);
    ownerHeaders = authHeader(owner.token);
    ({ session, subject } = await sessionWithSubject(test, owner.token));
    await get(
      `/api/sessions/${session.id}/set_metadata/?settings_data_sharing=${encodeURIComponent(IDENTIFIED_VIDEOS)}`,
      ownerHeaders,
    );
    await seedTrial(test, session.id, {
      name: 'walk',
      videos: [{ deviceId: 'phone-a', bytes: Buffer.from('not really an mp4') }],
      results: [{ tag: RESULT_TAGS.ikResults, fileName: 'walk.mot', bytes: Buffer.from('knee_angle_r') }],
    });
  });
  afterAll(async () => {
    await test?.close();
  });

  /** Everything the holder of `token` reads through it, each as its answer's status. */
  async function whatTheLinkOpens(token: string, mediaUrls: string[] = []) {
    const query = `?share_token=${encodeURIComponent(token)}`;
    const listed = await test.call({
      method: 'POST',
      url: '/api/sessions/valid/',
      payload: { subject_id: subject.id, share_token: token },
    });
    return {
      subject: (await get(`/api/subjects/${subject.id}/${query}`)).statusCode,
      session: (await get(`/api/sessions/${session.id}/${query}`)).statusCode,
      zip: (await get(`/api/sessions/${session.id}/download/${query}`)).statusCode,
      subjectZip: (await get(`/api/subjects/${subject.id}/download/${query}`)).statusCode,
      listed: (listed.json() as { total: number }).total,
      media: await Promise.all(mediaUrls.map(async (url) => (await get(url)).statusCode)),
    };
  }
  const opens = (media: number) => ({
    subject: 200,
    session: 200,
    zip: 200,
    subjectZip: 200,
    listed: 1,
    media: [media, media],
  });
  const closed = { subject: 404, session: 404, zip: 404, subjectZip: 404, listed: 0, media: [403, 403] };

  /** The walk trial's media URLs as the holder of `token` got them: its video, then its result. */
  async function mediaThrough(token: string): Promise<string[]> {
    const read = (await get(`/api/sessions/${session.id}/?share_token=${encodeURIComponent(token)}`)).json() as Session;
    const walk = read.trials.find((trial) => trial.name === 'walk') as Trial;
    return [walk.videos[0].video!, walk.results[0].media!];
  }

  it('stops reading the private session, its media and its zips once the subject is trashed, until it is restored', async () => {
    const token = subject.share_token!;
    const media = await mediaThrough(token);
    expect(await whatTheLinkOpens(token, media)).toEqual(opens(200));

    await subjectAction('trash');
    expect(await whatTheLinkOpens(token, media)).toEqual(closed);
    // The owner still reads everything.
    expect((await get(`/api/sessions/${session.id}/`, ownerHeaders)).statusCode).toBe(200);

    await subjectAction('restore');
    expect(await whatTheLinkOpens(token, media)).toEqual(opens(200));
  });

  it('lets the owner replace the link, which stops the old one, and revoke it, which stops every one', async () => {
    const old = (await get(`/api/subjects/${subject.id}/`, ownerHeaders)).json() as Subject;
    const oldMedia = await mediaThrough(old.share_token!);

    const replaced = await subjectAction('replace_share_token');
    expect(replaced.share_token).toEqual(expect.stringMatching(/^[\w-]{40,}$/));
    expect(replaced.share_token).not.toBe(old.share_token);
    expect(await whatTheLinkOpens(old.share_token!, oldMedia)).toEqual(closed);
    const newMedia = await mediaThrough(replaced.share_token!);
    expect(await whatTheLinkOpens(replaced.share_token!, newMedia)).toEqual(opens(200));

    const revoked = await subjectAction('revoke_share_token');
    expect(revoked.share_token).toBeNull();
    expect(await whatTheLinkOpens(replaced.share_token!, newMedia)).toEqual(closed);
    // Nothing opens for a link that is no more, nor for the absent one.
    expect(await whatTheLinkOpens('', [])).toMatchObject({ subject: 404, session: 404, listed: 0 });

    // Another user cannot change someone else's link.
    const stranger = authHeader((await verifiedUser(test)).token);
    expect((await post(`/api/subjects/${subject.id}/replace_share_token/`, stranger)).statusCode).toBe(404);
    expect((await post(`/api/subjects/${subject.id}/revoke_share_token/`, stranger)).statusCode).toBe(404);
    subject = await subjectAction('replace_share_token');
  });

  it("shows readers an imported calibration's cameras, never the names of the files the owner uploaded", async () => {
    const fileName = (name: string) => `Smith_Jane_1961-03-02_clinic_${name}.json`;
    const boundary = 'calibrationb0undary';
    const payload = Buffer.concat([
      ...['left', 'right'].map((name, index) =>
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${fileName(name)}"\r\n\r\n` +
            `${writeKinetraceCameras([testCamera(name, index)])}\r\n`,
        ),
      ),
      Buffer.from(`--${boundary}--\r\n`),
    ]);
    const imported = await test.call({
      method: 'POST',
      url: `/api/sessions/${session.id}/import-calibration/`,
      headers: { ...ownerHeaders, 'content-type': `multipart/form-data; boundary=${boundary}` },
      payload,
    });
    expect(imported.statusCode, imported.body).toBe(200);

    const calibrationAs = async (headers: Record<string, string>, query = '') => {
      const read = (await get(`/api/sessions/${session.id}/${query}`, headers)).json() as Session;
      return read.trials.find((trial) => trial.name === 'calibration' && !trial.trashed)!;
    };
    // The owner keeps the names of the files they uploaded.
    expect(JSON.stringify(await calibrationAs(ownerHeaders))).toContain(fileName('left'));

    await test.call({
      method: 'PATCH',
      url: `/api/sessions/${session.id}/`,
      headers: ownerHeaders,
      payload: { public: true },
    });
    try {
      for (const [reader, query] of [
        ['a public visitor', ''],
        ["the holder of the subject's link", `?share_token=${subject.share_token}`],
      ]) {
        const calibration = await calibrationAs({}, query);
        expect(
          calibration.results.map((result) => result.tag),
          reader,
        ).toEqual([RESULT_TAGS.cameraParameters, RESULT_TAGS.cameraParameters, RESULT_TAGS.cameraMapping]);
        expect(JSON.stringify(calibration), reader).not.toMatch(/Smith|1961|clinic/);
        for (const result of calibration.results) {
          const file = await get(result.media!);
          expect(file.statusCode, reader).toBe(200);
          // OpenCap's camera mapping is a pickle of device ids: it must not name the files either.
          if (result.tag === RESULT_TAGS.cameraParameters) expect(file.body, reader).toMatch(/"cameras"/);
          expect(file.body, reader).not.toMatch(/Smith|1961|clinic/);
        }
      }
    } finally {
      await test.call({
        method: 'PATCH',
        url: `/api/sessions/${session.id}/`,
        headers: ownerHeaders,
        payload: { public: false },
      });
    }
  });
});
