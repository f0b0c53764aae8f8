import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Parser } from 'pickleparser';
import { parse as parseYaml } from 'yaml';
import { DATA_SHARING_OPTIONS, RESULT_TAGS, type Session, type Trial } from '@kinetrace/contracts';
import { PROCESSED_DEVICES, seedProcessedSession, type ProcessedSession } from './support/processed-session.ts';
import { authHeader, PASSWORD, startTestApp, verifiedUser, type TestApp } from './support/test-app.ts';
import { unzip } from './support/unzip.ts';

const [, PROCESSED_DATA] = DATA_SHARING_OPTIONS;

/**
 * Issue 22, OpenCap compatibility: a trial's JSON carries what opencap-processing's download
 * functions read (utils.py: results by tag with their device_id, session_id, session_metadata on the
 * neutral, camera_mapping on the calibration) and names files in its URLs as the client parses them.
 */
describe('trials as OpenCap’s client reads them', () => {
  let test: TestApp;
  let owner: Awaited<ReturnType<typeof verifiedUser>>;
  let headers: Record<string, string>;
  let seeded: ProcessedSession;

  beforeAll(async () => {
    test = await startTestApp('pglite');
    owner = await verifiedUser(test);
    headers = authHeader(owner.token);
    seeded = await seedProcessedSession(test, owner.token);
  });
  afterAll(async () => {
    await test?.close();
  });

  const trial = async (id: string, as: Record<string, string> = headers) =>
    (await test.call({ method: 'GET', url: `/api/trials/${id}/`, headers: as })).json() as Trial;
  const download = async (url: string) => {
    const response = await test.call({ method: 'GET', url });
    expect(response.statusCode, url).toBe(200);
    return response.rawPayload;
  };
  const resultOf = (of: Trial, tag: string) => of.results.find((result) => result.tag === tag)!;

  it('gives the neutral a session_metadata result: sessionMetadata.yaml in OpenCap’s keys, naming the model used', async () => {
    const neutral = await trial(seeded.trialIds.neutral);
    expect(neutral.session_id).toBe(seeded.session.id);
    const metadata = parseYaml((await download(resultOf(neutral, RESULT_TAGS.sessionMetadata).media!)).toString());
    expect(metadata).toMatchObject({
      subjectID: 'OpenCap subject',
      mass_kg: 83,
      height_m: 1.86,
      gender_mf: 'Woman',
      openSimModel: 'LaiUhlrich2022',
      posemodel: 'hrnet',
      markerAugmentationSettings: { markerAugmenterModel: 'v0.3' },
      checkerBoard: {
        black2BlackCornersHeight_n: 4,
        black2BlackCornersWidth_n: 5,
        squareSideLength_mm: 35,
        placement: 'backWall',
      },
      iphoneModel: { Cam0: 'iPhone13,3', Cam1: 'iPhone13,3' },
    });
    // The client takes the model's file name from between the URL's last '-' and its '?'.
    const model = resultOf(neutral, RESULT_TAGS.opensimModel).media!;
    expect(model.slice(model.lastIndexOf('-') + 1, model.lastIndexOf('?'))).toBe('LaiUhlrich2022_scaled.osim');
    expect((await download(model)).equals(seeded.bytes.osim)).toBe(true);
  });

  it('gives the calibration a camera_mapping result: a pickle of {device id: camera index} keyed as the client looks phones up', async () => {
    const calibration = await trial(seeded.trialIds.calibration);
    const mapping = new Parser().parse(await download(resultOf(calibration, RESULT_TAGS.cameraMapping).media!));
    expect(mapping).toEqual({
      [PROCESSED_DEVICES[0].replace(/-/g, '')]: 0,
      [PROCESSED_DEVICES[1].replace(/-/g, '')]: 1,
    });
    // Each per-camera result names its phone.
    const parameters = calibration.results.filter((result) => result.tag === RESULT_TAGS.cameraParameters);
    expect(parameters.map((result) => result.device_id)).toEqual([...PROCESSED_DEVICES]);
    expect(calibration.results.filter((result) => result.tag === RESULT_TAGS.sessionMetadata)).toEqual([]);
  });

  it('names synchronised videos <trial>_sync_Cam<i>.mp4, the camera being what follows the URL’s last _', async () => {
    const walk = await trial(seeded.trialIds.walk);
    const synced = walk.results.filter((result) => result.tag === RESULT_TAGS.videoSync);
    expect(synced.map((result) => result.device_id)).toEqual([...PROCESSED_DEVICES]);
    for (const [camera, result] of synced.entries()) {
      const url = result.media!;
      expect(url.slice(url.lastIndexOf('-') + 1, url.indexOf('?'))).toBe(`walk_sync_Cam${camera}.mp4`);
      expect(url.slice(url.lastIndexOf('_') + 1)).toMatch(new RegExp(`^Cam${camera}\\.mp4\\?[^.]*$`));
      expect((await download(url)).equals(seeded.bytes.sync('walk', camera))).toBe(true);
    }
    expect(walk.results.filter((result) => result.tag === RESULT_TAGS.sessionMetadata)).toEqual([]);
  });

  it('tells who the subject is only to those who may know: a public session’s metadata has the measures, not the person', async () => {
    const made = await test.call({
      method: 'PATCH',
      url: `/api/sessions/${seeded.session.id}/`,
      headers,
      payload: { public: true },
    });
    expect(made.statusCode).toBe(200);
    await test.call({
      method: 'GET',
      url: `/api/sessions/${seeded.session.id}/set_metadata/?settings_data_sharing=${encodeURIComponent(PROCESSED_DATA)}`,
      headers,
    });
    const stranger = authHeader((await verifiedUser(test)).token);
    const neutral = await trial(seeded.trialIds.neutral, stranger);
    const metadata = parseYaml((await download(resultOf(neutral, RESULT_TAGS.sessionMetadata).media!)).toString());
    expect(metadata).toMatchObject({ subjectID: null, gender_mf: null, mass_kg: 83, height_m: 1.86 });
    await test.call({
      method: 'PATCH',
      url: `/api/sessions/${seeded.session.id}/`,
      headers,
      payload: { public: false },
    });
    expect(
      (await test.call({ method: 'GET', url: resultOf(neutral, RESULT_TAGS.sessionMetadata).media! })).statusCode,
    ).toBe(403);
  });

  it('lists the caller’s sessions in full on GET /sessions/ and, with a processed neutral, on GET /sessions/valid/', async () => {
    const unprocessed = (
      (await test.call({ method: 'GET', url: '/api/sessions/new/', headers })).json() as Session[]
    )[0];
    const other = await verifiedUser(test);
    await seedProcessedSession(test, other.token);
    const list = async (url: string, as: Record<string, string> = headers) => {
      const response = await test.call({ method: 'GET', url, headers: as });
      expect(response.statusCode, url).toBe(200);
      return response.json() as Session[];
    };
    const valid = await list('/api/sessions/valid/');
    expect(valid.map((session) => session.id)).toEqual([seeded.session.id]);
    // As the client reads them: the subject's id and each trial's name (getSubjectSessions, getTrialNames).
    expect(valid[0].subject).toBe(seeded.subject.id);
    expect(valid[0].trials.map((trial) => trial.name)).toEqual(['calibration', 'neutral', 'walk']);
    expect((await list('/api/sessions/')).map((session) => session.id)).toEqual([unprocessed.id, seeded.session.id]);
    expect((await test.call({ method: 'GET', url: '/api/sessions/valid/' })).statusCode).toBe(401);
    // The web app's POST list stays as it was.
    const posted = await test.call({ method: 'POST', url: '/api/sessions/valid/', headers, payload: {} });
    expect(posted.json()).toMatchObject({ total: 2 });
  });

  it('logs in with a form as OpenCap’s client posts it, and answers a bad form field by field', async () => {
    const form = (fields: Record<string, string>) => ({
      method: 'POST' as const,
      url: '/api/login/',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(fields).toString(),
    });
    const login = await test.call(form({ username: owner.username, password: PASSWORD }));
    expect(login.statusCode).toBe(200);
    expect(login.json()).toMatchObject({ user_id: owner.userId, token: expect.any(String) });
    const missing = await test.call(form({ username: owner.username }));
    expect(missing.statusCode).toBe(400);
    expect(Object.keys(missing.json() as object)).toEqual(['password']);
  });

  it('zips the session in OpenCap’s layout: the scaled model by its name, settings, the camera mapping and the synced videos per camera', async () => {
    const zip = await test.call({ method: 'GET', url: `/api/sessions/${seeded.session.id}/download/`, headers });
    expect(zip.statusCode).toBe(200);
    const entries = await unzip(zip.rawPayload);
    const at = (path: string) => entries.get(`${seeded.session.id}/${path}`);
    expect(at('OpenSimData/Model/LaiUhlrich2022_scaled.osim')?.equals(seeded.bytes.osim)).toBe(true);
    expect(at('MarkerData/Settings/settings_walk.yaml')?.equals(seeded.bytes.settings('walk'))).toBe(true);
    expect(at('MarkerData/Settings/settings_neutral.yaml')?.equals(seeded.bytes.settings('neutral'))).toBe(true);
    expect(at('MarkerData/walk.trc')?.equals(seeded.bytes.trc('walk'))).toBe(true);
    expect(at('OpenSimData/Kinematics/walk.mot')?.equals(seeded.bytes.mot)).toBe(true);
    expect(new Parser().parse(at('Videos/mappingCamDevice.pickle')!)).toEqual({
      [PROCESSED_DEVICES[0].replace(/-/g, '')]: 0,
      [PROCESSED_DEVICES[1].replace(/-/g, '')]: 1,
    });
    for (const camera of [0, 1]) {
      for (const trialName of ['neutral', 'walk']) {
        const folder = `Videos/Cam${camera}/InputMedia/${trialName}`;
        expect(at(`${folder}/${trialName}_sync.mp4`)?.equals(seeded.bytes.sync(trialName, camera)), folder).toBe(true);
        expect(at(`${folder}/${trialName}.mov`)?.equals(seeded.bytes.video(trialName, camera)), folder).toBe(true);
      }
    }
    expect(parseYaml(at('sessionMetadata.yaml')!.toString())).toMatchObject({
      openSimModel: 'LaiUhlrich2022',
      gender_mf: 'Woman',
      mass_kg: 83,
    });
  });
});
