import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { parse as parseYaml } from 'yaml';
import {
  DATA_SHARING_OPTIONS,
  INT4_MAX,
  RESULT_TAGS,
  type Session,
  type Subject,
  type Trial,
} from '@kinetrace/contracts';
import { schema } from '@kinetrace/db';
import { seedTrial } from './support/seed.ts';
import { authHeader, startTestApp, verifiedUser, type TestApp } from './support/test-app.ts';
import { unzip } from './support/unzip.ts';

const [IDENTIFIED_VIDEOS, DEIDENTIFIED_VIDEOS, PROCESSED_ONLY, NO_DATA] = DATA_SHARING_OPTIONS;
/** The seeded walk's synchronised video with its faces blurred (what the engine writes beside each video-sync). */
const BLURRED = Buffer.from('faces blurred');

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
    session = (
      (await test.call({ method: 'GET', url: '/api/sessions/new/', headers: ownerHeaders })).json() as Session[]
    )[0];
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
    await test.call({
      method: 'GET',
      url: `/api/sessions/${session.id}/set_subject/?subject_id=${subject.id}`,
      headers: ownerHeaders,
    });
    const video = Buffer.from('not really an mp4');
    await seedTrial(test, session.id, {
      name: 'walk',
      videos: [
        { deviceId: 'phone-a', bytes: video },
        { deviceId: 'phone-b', bytes: video },
      ],
      results: [
        { tag: RESULT_TAGS.ikResults, fileName: 'walk.mot', bytes: Buffer.from('knee_angle_r') },
        { tag: RESULT_TAGS.videoSync, fileName: 'walk_sync.mp4', bytes: video },
        { tag: RESULT_TAGS.videoSyncDeidentified, fileName: 'walk_sync_deidentified.mp4', bytes: BLURRED },
      ],
    });
    const neutralId = await seedTrial(test, session.id, {
      name: 'neutral',
      results: [
        { tag: RESULT_TAGS.opensimModel, fileName: 'scaled.osim', bytes: Buffer.from('<OpenSimDocument/>') },
        { tag: RESULT_TAGS.neutralImage, fileName: 'neutral_phone-a.jpg', bytes: Buffer.from('jpeg') },
      ],
    });
    const neutralMeta = {
      subject: {
        id: subject.id,
        mass_kg: 81.5,
        height_m: 1.83,
        sex: 'woman',
        gender: 'non-binary',
        data_sharing: IDENTIFIED_VIDEOS,
      },
    };
    await test.backends.database.db
      .update(schema.trials)
      .set({ meta: neutralMeta })
      .where(eq(schema.trials.id, neutralId));
  });

  const get = (url: string, headers: Record<string, string> = {}) => test.call({ method: 'GET', url, headers });
  const setPublic = (value: boolean) =>
    test.call({
      method: 'PATCH',
      url: `/api/sessions/${session.id}/`,
      headers: ownerHeaders,
      payload: { public: value },
    });
  const setSharing = (option: string) =>
    get(`/api/sessions/${session.id}/set_metadata/?settings_data_sharing=${encodeURIComponent(option)}`, ownerHeaders);
  const trialOf = (viewed: Session, name: string) => viewed.trials.find((trial) => trial.name === name)!;
  const sessionAs = async (headers: Record<string, string> = {}, query = '') => {
    const response = await get(`/api/sessions/${session.id}/${query}`, headers);
    expect(response.statusCode).toBe(200);
    return response.json() as Session;
  };
  /** The media URLs a viewer got for a trial: its videos, then its results. */
  const mediaOf = (trial: Trial) => [
    ...trial.videos.map((video) => video.video!),
    ...trial.results.map((result) => result.media!),
  ];
  async function zipOf(url: string) {
    const response = await get(url);
    expect(response.statusCode, url).toBe(200);
    return unzip(response.rawPayload);
  }
  afterAll(async () => {
    await test?.close();
  });

  it('answers an id the database cannot hold as not found (path) or a field error (query, body), never 500', async () => {
    const tooLarge = INT4_MAX + 1;
    for (const headers of [ownerHeaders, {}]) {
      for (const url of [
        `/api/subjects/${tooLarge}/`,
        `/api/subjects/${tooLarge}/download/`,
        `/api/subject-tags/${tooLarge}/get_tags_subject/`,
        `/api/subjects/1e3/`,
      ]) {
        const response = await test.call({ method: 'GET', url, headers });
        expect(response.statusCode, url).toBe(404);
        expect(response.json()).toEqual({ detail: 'Not found.' });
      }
      const trashed = await test.call({ method: 'POST', url: `/api/subjects/${tooLarge}/trash/`, headers });
      expect(trashed.statusCode).toBe(404);
      const listed = await test.call({
        method: 'POST',
        url: '/api/sessions/valid/',
        headers,
        payload: { subject_id: tooLarge },
      });
      expect(listed.statusCode).toBe(400);
      expect(listed.json()).toEqual({ subject_id: [expect.any(String)] });
    }
    const setSubject = await test.call({
      method: 'GET',
      url: `/api/sessions/${session.id}/set_subject/?subject_id=${tooLarge}`,
      headers: ownerHeaders,
    });
    expect(setSubject.statusCode).toBe(400);
    expect(Object.keys(setSubject.json() as object)).toEqual(['subject_id']);
    const notUuid = await test.call({ method: 'GET', url: '/api/sessions/not-a-session/', headers: ownerHeaders });
    expect(notUuid.statusCode).toBe(404);
  });

  it("shows a public session's visitors what the session's data-sharing choice allows, the same in the API, the zip and the media", async () => {
    await setPublic(true);
    try {
      for (const option of [IDENTIFIED_VIDEOS, DEIDENTIFIED_VIDEOS, PROCESSED_ONLY, NO_DATA]) {
        expect((await setSharing(option)).statusCode).toBe(200);
        const processed = option !== NO_DATA;
        const videos = option === IDENTIFIED_VIDEOS;
        const deidentified = option === DEIDENTIFIED_VIDEOS;

        const visitor = await sessionAs();
        expect(visitor.name, option).toBeNull(); // the subject's name is for those who may read the subject
        const walk = trialOf(visitor, 'walk');
        expect(walk.videos.length, option).toBe(videos ? 2 : 0);
        const shownTags = [...walk.results, ...trialOf(visitor, 'neutral').results].map((result) => result.tag).sort();
        const expectedTags = [
          // The neutral's session_metadata (OpenCap's sessionMetadata.yaml) is processed data too.
          ...(processed ? [RESULT_TAGS.ikResults, RESULT_TAGS.opensimModel, RESULT_TAGS.sessionMetadata] : []),
          ...(videos ? [RESULT_TAGS.videoSync, RESULT_TAGS.neutralImage] : []),
          ...(deidentified ? [RESULT_TAGS.videoSync] : []), // the de-identified one (below)
        ].sort();
        expect(shownTags, option).toEqual(expectedTags);
        expect(trialOf(visitor, 'neutral').meta.subject, option).toEqual(
          processed ? { mass_kg: 81.5, height_m: 1.83 } : {},
        );
        for (const url of mediaOf(walk)) expect((await get(url)).statusCode, url).toBe(200);

        const entries = await zipOf(`/api/sessions/${session.id}/download/`);
        const names = [...entries.keys()];
        expect(
          names.some((name) => name.includes('/Videos/')),
          option,
        ).toBe(videos);
        expect(
          names.some((name) => name.includes('/NeutralImages/')),
          option,
        ).toBe(videos);
        expect(
          names.some((name) => name.endsWith('/OpenSimData/Kinematics/walk.mot')),
          option,
        ).toBe(processed);
        const metadata = parseYaml(
          entries.get(names.find((name) => name.endsWith('sessionMetadata.yaml'))!)!.toString(),
        ) as Record<string, unknown>;
        expect(metadata, option).toMatchObject({
          subjectID: null,
          birth_year: null,
          sex_at_birth: null,
          gender: null,
          subject_tags: [],
          mass_kg: processed ? 81.5 : null,
          height_m: processed ? 1.83 : null,
        });
        expect(JSON.stringify(metadata)).not.toMatch(/1961|knee-oa|non-binary|P07/);
      }

      // The owner sees everything whatever the choice; the holder of the subject's link sees the subject too.
      const own = await sessionAs(ownerHeaders);
      expect(trialOf(own, 'walk').videos).toHaveLength(2);
      expect(trialOf(own, 'neutral').meta.subject).toMatchObject({ sex: 'woman', gender: 'non-binary' });
      await setSharing(PROCESSED_ONLY);
      const linked = await sessionAs({}, `?share_token=${subject.share_token}`);
      expect(linked.name).toBe('P07');
      expect(trialOf(linked, 'neutral').meta.subject).toMatchObject({ mass_kg: 81.5, sex: 'woman' });
      const linkedZip = await zipOf(`/api/sessions/${session.id}/download/?share_token=${subject.share_token}`);
      const linkedMetadata = [...linkedZip].find(([name]) => name.endsWith('sessionMetadata.yaml'))![1].toString();
      expect(parseYaml(linkedMetadata)).toMatchObject({ subjectID: 'P07', birth_year: 1961, mass_kg: 81.5 });
      expect([...linkedZip.keys()].some((name) => name.includes('/Videos/'))).toBe(false);
    } finally {
      await setPublic(false);
    }
  });

  it("gives a public session's visitors the faces-blurred synchronised videos when the subject consented to de-identified videos, never the originals", async () => {
    await setSharing(IDENTIFIED_VIDEOS);
    await setPublic(true);
    try {
      const identified = trialOf(await sessionAs(), 'walk');
      const originalUrls = mediaOf(identified).filter((url) => !url.includes('/results/ik_results/'));
      expect(originalUrls).toHaveLength(3); // two recorded videos and the synchronised one
      expect(identified.results.map((result) => result.tag)).not.toContain(RESULT_TAGS.videoSyncDeidentified);

      await setSharing(DEIDENTIFIED_VIDEOS);
      const visitor = trialOf(await sessionAs(), 'walk');
      expect(visitor.videos).toEqual([]);
      const synced = visitor.results.filter((result) => result.tag === RESULT_TAGS.videoSync);
      expect(synced).toHaveLength(1);
      const served = await get(synced[0].media!);
      expect(served.statusCode).toBe(200);
      expect(served.headers['content-type']).toBe('video/mp4');
      expect(served.rawPayload.equals(BLURRED)).toBe(true);
      // Nothing else they hold, or held while the originals were shared, plays an original.
      for (const result of visitor.results) {
        const response = await get(result.media!);
        expect(response.rawPayload.includes('not really an mp4'), result.tag).toBe(false);
      }
      for (const url of originalUrls) expect((await get(url)).statusCode, url).toBe(403);
      expect((await get(synced[0].media!.replace(/access=p[a-z]+/, 'access=pmedia'))).statusCode).toBe(403);

      const entries = await zipOf(`/api/sessions/${session.id}/download/`);
      const videos = [...entries].filter(([name]) => name.endsWith('.mp4'));
      expect(videos.map(([name]) => name.replace(/^[^/]+\//, ''))).toEqual([
        'VisualizerVideos/walk/walk_sync_deidentified.mp4',
      ]);
      expect(videos[0][1].equals(BLURRED)).toBe(true);

      // The owner still sees and downloads the originals.
      const own = trialOf(await sessionAs(ownerHeaders), 'walk');
      const ownSynced = own.results.filter((result) => result.tag === RESULT_TAGS.videoSync);
      expect(ownSynced).toHaveLength(1);
      expect((await get(ownSynced[0].media!)).rawPayload.toString()).toBe('not really an mp4');
      expect(own.videos).toHaveLength(2);
    } finally {
      await setPublic(false);
    }
  });

  it('stops the media URLs a visitor got once the session is private, the trial trashed or the sharing narrowed, and keeps the owner’s playing', async () => {
    await setSharing(IDENTIFIED_VIDEOS);
    await setPublic(true);
    try {
      const visitorWalk = trialOf(await sessionAs(), 'walk');
      const [visitorVideo, , visitorResult] = mediaOf(visitorWalk);
      const ownerUrls = mediaOf(trialOf(await sessionAs(ownerHeaders), 'walk'));
      const status = async (url: string) => (await get(url)).statusCode;
      expect(await status(visitorVideo)).toBe(200);
      expect(await status(visitorResult)).toBe(200);

      await setPublic(false);
      expect(await status(visitorVideo)).toBe(403);
      expect(await status(visitorResult)).toBe(403);
      for (const url of ownerUrls) expect(await status(url)).toBe(200);

      await setPublic(true);
      expect(await status(visitorVideo)).toBe(200);
      await test.call({ method: 'POST', url: `/api/trials/${visitorWalk.id}/trash/`, headers: ownerHeaders });
      expect(await status(visitorVideo)).toBe(403);
      expect(await status(visitorResult)).toBe(403);
      for (const url of ownerUrls) expect(await status(url)).toBe(200);
      await test.call({ method: 'POST', url: `/api/trials/${visitorWalk.id}/restore/`, headers: ownerHeaders });

      await setSharing(PROCESSED_ONLY);
      expect(await status(visitorVideo)).toBe(403);
      expect(await status(visitorResult)).toBe(200);

      // A URL whose access was altered is not ours.
      expect(await status(visitorResult.replace(/access=[^&]+/, 'access=o'))).toBe(403);
    } finally {
      await setPublic(false);
    }
  });

  it("gives the holder of a subject's link the same sessions in the sync and the async download", async () => {
    await setSharing(PROCESSED_ONLY);
    const other = ((await get('/api/sessions/new/', ownerHeaders)).json() as Session[])[0];
    await get(`/api/sessions/${other.id}/set_subject/?subject_id=${subject.id}`, ownerHeaders);
    await test.call({ method: 'POST', url: `/api/sessions/${other.id}/trash/`, headers: ownerHeaders });
    const query = `?share_token=${subject.share_token}`;
    const sync = [...(await zipOf(`/api/subjects/${subject.id}/download/${query}`)).keys()].sort();
    const taskId = ((await get(`/api/subjects/${subject.id}/async-download/${query}`)).json() as { task_id: string })
      .task_id;
    let url = '';
    await expect
      .poll(
        async () => {
          const poll = await get(`/api/logs/${taskId}/on-ready/`);
          if (poll.statusCode === 200) url = (poll.json() as { url: string }).url;
          return poll.statusCode;
        },
        { timeout: 30_000, interval: 100 },
      )
      .toBe(200);
    const async = [...(await zipOf(url)).keys()].sort();
    expect(async).toEqual(sync);
    const folders = new Set(sync.map((name) => name.split('/')[0]));
    expect(folders).toEqual(new Set([expect.stringContaining(session.id.slice(0, 8))])); // the private session, not the trashed one
    expect(sync.some((name) => name.endsWith('/OpenSimData/Kinematics/walk.mot'))).toBe(true);
  });

  it("says what happened to a video it cannot read and what to try, without the server's paths or the prober's output", async () => {
    const own = ((await get('/api/sessions/new/', ownerHeaders)).json() as Session[])[0];
    const boundary = 'b0undary';
    const part = (name: string) =>
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="video"; filename="${name}"\r\nContent-Type: video/mp4\r\n\r\nnot a video at all\r\n`,
      );
    const response = await test.call({
      method: 'POST',
      url: `/api/sessions/${own.id}/import/`,
      headers: { ...ownerHeaders, 'content-type': `multipart/form-data; boundary=${boundary}` },
      payload: Buffer.concat([
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\ncalibration\r\n`),
        part('cam1.mp4'),
        part('cam2.mp4'),
        Buffer.from(`--${boundary}--\r\n`),
      ]),
    });
    expect(response.statusCode, response.body).toBe(400);
    const internals = /\/tmp|\/work|\/data\/|uploads|ffprobe|ffmpeg|Invalid data|\.ts\b/;
    expect(response.body).toMatch(/could not be read/);
    expect(response.body).not.toMatch(internals);
    const trial = (await get(`/api/sessions/${own.id}/`, ownerHeaders)).json() as Session;
    const messages = trial.trials.map((row) => String(row.meta.error_msg ?? '')).join('\n');
    expect(messages).not.toMatch(internals);
    expect(test.logs.join('\n')).toMatch(/uploaded video could not be read/);
  });

  it("gives the owner's user id to the owner only", async () => {
    await test.call({
      method: 'PATCH',
      url: `/api/sessions/${session.id}/`,
      headers: ownerHeaders,
      payload: { public: true },
    });
    try {
      const asOwner = (
        await test.call({ method: 'GET', url: `/api/sessions/${session.id}/`, headers: ownerHeaders })
      ).json() as Session;
      expect(asOwner.user).toBe(owner.userId);
      const other = await verifiedUser(test);
      for (const headers of [{}, authHeader(other.token)]) {
        const response = await test.call({ method: 'GET', url: `/api/sessions/${session.id}/`, headers });
        expect(response.statusCode).toBe(200);
        expect((response.json() as Session).user).toBeNull();
        expect(response.body).not.toMatch(new RegExp(`"user(_id)?":${owner.userId}\\b`));
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

  it("leaves no folder of a deleted account's files behind", async () => {
    const user = await verifiedUser(test);
    const headers = authHeader(user.token);
    const png = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
      'base64',
    );
    const boundary = 'b0undary';
    const picture = await test.call({
      method: 'POST',
      url: '/api/update_profile_picture/',
      headers: { ...headers, 'content-type': `multipart/form-data; boundary=${boundary}` },
      payload: Buffer.concat([
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="profile_picture"; filename="p.png"\r\n\r\n`,
        ),
        png,
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]),
    });
    expect(picture.statusCode).toBe(200);
    const own = ((await test.call({ method: 'GET', url: '/api/sessions/new/', headers })).json() as Session[])[0];
    await seedTrial(test, own.id, {
      name: 'walk',
      results: [{ tag: 'ik_results', fileName: 'walk.mot', bytes: Buffer.from('x') }],
    });
    const userFolder = join(test.dataDir, 'files', 'users', String(user.userId));
    const sessionFolder = join(test.dataDir, 'files', 'sessions', own.id);
    expect(existsSync(userFolder)).toBe(true);
    expect(existsSync(sessionFolder)).toBe(true);
    const deleted = await test.call({
      method: 'POST',
      url: '/api/delete-account/',
      headers,
      payload: { confirm: user.username },
    });
    expect(deleted.statusCode).toBe(200);
    expect(existsSync(userFolder)).toBe(false);
    expect(existsSync(sessionFolder)).toBe(false);
  });
});
