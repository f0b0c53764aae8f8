import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import {
  messages,
  SUBJECT_TAGS,
  TRIAL_TAGS,
  type RecycleBin,
  type Session,
  type Subject,
  type Trial,
} from '@kinetrace/contracts';
import { schema } from '@kinetrace/db';
import { backdateTrash, seedTrial } from './support/seed.ts';
import { authHeader, startTestApp, testBackends, verifiedUser, type TestApp } from './support/test-app.ts';
import { unzip } from './support/unzip.ts';

const backends = await testBackends();

const subjectPayload = (overrides: Record<string, unknown> = {}) => ({
  name: 'Participant 01',
  weight: 72.5,
  height: 1.78,
  birth_year: 1990,
  sex_at_birth: 'woman',
  gender: 'woman',
  characteristics: 'Right-handed',
  subject_tags: ['unimpaired'],
  terms: true,
  ...overrides,
});

describe.each(backends)('sessions, subjects and trials on %s', (backend) => {
  let test: TestApp;
  let owner: Awaited<ReturnType<typeof verifiedUser>>;
  let other: Awaited<ReturnType<typeof verifiedUser>>;

  beforeAll(async () => {
    test = await startTestApp(backend);
    owner = await verifiedUser(test);
    other = await verifiedUser(test);
  });
  afterAll(async () => {
    await test?.close();
  });

  const as = (user: { token: string } | null) => (user ? authHeader(user.token) : {});
  const get = (url: string, user: { token: string } | null = owner) =>
    test.call({ method: 'GET', url, headers: as(user) });
  const send = (
    method: 'POST' | 'PUT' | 'PATCH',
    url: string,
    payload?: unknown,
    user: { token: string } | null = owner,
  ) => test.call({ method, url, payload: payload as Record<string, unknown>, headers: as(user) });
  const newSession = async (user = owner) => ((await get('/api/sessions/new/', user)).json() as Session[])[0];
  const newSubject = async (overrides: Record<string, unknown> = {}, user = owner) =>
    (await send('POST', '/api/subjects/', subjectPayload(overrides), user)).json() as Subject;

  describe('subjects', () => {
    it('creates and updates a subject with every field, and derives its display texts', async () => {
      const created = await send('POST', '/api/subjects/', subjectPayload());
      expect(created.statusCode).toBe(201);
      const subject = created.json() as Subject;
      expect(subject).toMatchObject({
        name: 'Participant 01',
        weight: 72.5,
        height: 1.78,
        birth_year: 1990,
        sex_display: 'Female',
        gender_display: 'Woman',
        display_name: 'Participant 01 (72.5 kg, 1.78 m, 1990)',
        subject_tags: ['unimpaired'],
        trashed: false,
      });
      expect(subject.share_token).toEqual(expect.any(String));
      const updated = await send(
        'PUT',
        `/api/subjects/${subject.id}/`,
        subjectPayload({ weight: 80, gender: 'non-binary', subject_tags: ['stroke', 'fall-risk'] }),
      );
      expect(updated.json()).toMatchObject({
        weight: 80,
        gender_display: 'Non-Binary/Non-Conforming',
        subject_tags: ['stroke', 'fall-risk'],
      });
      const tags = await get(`/api/subject-tags/${subject.id}/get_tags_subject/`);
      expect(tags.json()).toEqual([{ tag: 'stroke' }, { tag: 'fall-risk' }]);
    });

    it('answers each rule of §5 with its message, keyed by field', async () => {
      const errorsFor = async (overrides: Record<string, unknown>) =>
        (await send('POST', '/api/subjects/', subjectPayload(overrides))).json();
      expect(await errorsFor({ weight: 201 })).toEqual({ weight: [messages.subjectWeightTooLarge] });
      expect(await errorsFor({ weight: 0.5 })).toEqual({ weight: [messages.subjectWeightTooSmall] });
      expect(await errorsFor({ height: 3.2 })).toEqual({ height: [messages.subjectHeightTooLarge] });
      expect(await errorsFor({ height: 0.05 })).toEqual({ height: [messages.subjectHeightTooSmall] });
      expect(await errorsFor({ birth_year: new Date().getFullYear() + 1 })).toEqual({
        birth_year: [messages.subjectBirthYearInFuture],
      });
      expect(await errorsFor({ birth_year: 1899 })).toEqual({ birth_year: [messages.subjectBirthYearTooEarly] });
      expect(await errorsFor({ subject_tags: [] })).toEqual({ subject_tags: [messages.subjectTagsRequired] });
      expect(await errorsFor({ subject_tags: 'unimpaired' })).toEqual({ subject_tags: [messages.subjectTagsNotArray] });
      expect(await errorsFor({ name: '', terms: false })).toMatchObject({
        name: [messages.required],
        terms: [expect.any(String)],
      });
      // Limits themselves are accepted.
      expect(
        (await send('POST', '/api/subjects/', subjectPayload({ weight: 200, height: 0.1, birth_year: 1900 })))
          .statusCode,
      ).toBe(201);
    });

    it('pages, searches and sorts, including the last page, an empty search and quantity -1', async () => {
      const user = await verifiedUser(test);
      for (let index = 0; index < 45; index++) {
        await newSubject({ name: `Runner ${String(index).padStart(2, '0')}`, weight: 50 + index }, user);
      }
      await newSubject({ name: 'Walker', weight: 99 }, user);
      const list = async (query: string) =>
        (await get(`/api/subjects/?${query}`, user)).json() as { subjects: Subject[]; total: number };

      const first = await list('start=0&quantity=40&sort=name');
      expect(first.total).toBe(46);
      expect(first.subjects).toHaveLength(40);
      expect(first.subjects[0].name).toBe('Runner 00');
      const last = await list('start=40&quantity=40&sort=name');
      expect(last.subjects.map((subject) => subject.name)).toEqual([
        'Runner 40',
        'Runner 41',
        'Runner 42',
        'Runner 43',
        'Runner 44',
        'Walker',
      ]);
      expect((await list('start=80&quantity=40')).subjects).toEqual([]);
      expect((await list('quantity=-1')).subjects).toHaveLength(46);
      expect((await list('search=walk')).subjects.map((subject) => subject.name)).toEqual(['Walker']);
      expect(await list('search=nobody')).toEqual({ subjects: [], total: 0 });
      const heaviest = await list('sort=weight&sort_desc=true&quantity=1');
      expect(heaviest.subjects[0].name).toBe('Walker');
    });

    it('trashes, hides, restores and permanently removes a subject, keeping its sessions', async () => {
      const subject = await newSubject({ name: 'To trash' });
      const session = await newSession();
      await get(`/api/sessions/${session.id}/set_subject/?subject_id=${subject.id}`);
      const trashed = await send('POST', `/api/subjects/${subject.id}/trash/`);
      expect(trashed.json()).toMatchObject({ trashed: true });
      const visible = (await get('/api/subjects/?quantity=-1')).json() as { subjects: Subject[] };
      expect(visible.subjects.some((item) => item.id === subject.id)).toBe(false);
      const withTrashed = (await get('/api/subjects/?quantity=-1&include_trashed=true')).json() as {
        subjects: Subject[];
      };
      expect(withTrashed.subjects.some((item) => item.id === subject.id)).toBe(true);
      expect((await send('POST', `/api/subjects/${subject.id}/restore/`)).json()).toMatchObject({ trashed: false });
      expect((await send('POST', `/api/subjects/${subject.id}/permanent_remove/`)).statusCode).toBe(204);
      expect((await get(`/api/subjects/${subject.id}/`)).statusCode).toBe(404);
      expect((await get(`/api/sessions/${session.id}/`)).json()).toMatchObject({ subject: null, name: null });
    });
  });

  describe('sessions', () => {
    it('creates a session with its pairing QR code and default settings', async () => {
      const session = await newSession();
      expect(session.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(session.qrcode).toMatch(/^data:image\/png;base64,/);
      expect(session.meta.settings).toMatchObject({
        framerate: 60,
        filter_frequency: 'default',
        pose_model: 'hrnet',
        pose_rate: 'filter',
      });
      expect(session).toMatchObject({
        user: owner.userId,
        public: false,
        trashed: false,
        trials_count: 0,
        trials: [],
        is_owner: true,
      });
      expect((await get(`/api/sessions/${session.id}/get_qr/`)).json()).toEqual({ qr: session.qrcode });
      // What each choice runs on this server (issue 21): the spec's pose models run BlazePose, and nothing is installed.
      expect((await get(`/api/sessions/${session.id}/get_session_settings/`)).json()).toMatchObject({
        framerates: [60, 120, 240],
        phone_keypoints: true,
        choices: {
          pose_model: [
            { value: 'hrnet', runs: 'BlazePose full', installed: true },
            { value: 'openpose', runs: 'BlazePose lite', installed: true },
          ],
          augmenter_model: [
            { value: 'v0.3', installed: false },
            { value: 'v0.2', installed: false },
          ],
        },
      });
    });

    it('with reuse_empty answers the newest session nothing was done in, and a new one once something was', async () => {
      const user = await verifiedUser(test);
      const newOrEmpty = async () => ((await get('/api/sessions/new/?reuse_empty=true', user)).json() as Session[])[0];
      const first = await newOrEmpty();
      expect((await newOrEmpty()).id).toBe(first.id);
      // Without it (OpenCap's clients, scripts): a new session each time.
      const plain = await newSession(user);
      expect(plain.id).not.toBe(first.id);
      expect((await newOrEmpty()).id).toBe(plain.id);
      // A name, a subject, a trial (even trashed), a paired phone, being public or trashed: no longer empty.
      await send('POST', `/api/sessions/${plain.id}/rename/`, { sessionNewName: 'named' }, user);
      expect((await newOrEmpty()).id).toBe(first.id);
      const subject = (await send('POST', '/api/subjects/', subjectPayload(), user)).json() as Subject;
      await get(`/api/sessions/${first.id}/set_subject/?subject_id=${subject.id}`, user);
      const seen = new Set([first.id, plain.id]);
      const doSomethingIn = [
        async (id: string) =>
          send('POST', `/api/trials/${await seedTrial(test, id, { name: 'walk' })}/trash/`, {}, user),
        (id: string) =>
          test.backends.database.db.insert(schema.sessionDevices).values({ sessionId: id, deviceId: 'phone-1' }),
        (id: string) => send('PATCH', `/api/sessions/${id}/`, { public: true }, user),
        (id: string) => send('POST', `/api/sessions/${id}/trash/`, {}, user),
      ];
      for (const act of doSomethingIn) {
        const session = await newOrEmpty();
        expect(seen.has(session.id)).toBe(false);
        seen.add(session.id);
        await act(session.id);
      }
      expect(seen.has((await newOrEmpty()).id)).toBe(false);
      // Another user's empty session is never answered.
      const others = ((await get('/api/sessions/new/?reuse_empty=true', other)).json() as Session[])[0];
      expect(others.user).toBe(other.userId);
    });

    it('stores calibration and neutral settings, clamping the filter frequency as §5 says', async () => {
      const session = await newSession();
      const set = async (query: string) => (await get(`/api/sessions/${session.id}/set_metadata/?${query}`)).json();
      expect(await set('cb_rows=5&cb_cols=6&cb_square=40&cb_placement=Lying')).toMatchObject({
        meta: { checkerboard: { rows: 5, cols: 6, squareSize: 40, placement: 'Lying' } },
        warnings: [],
      });
      const neutral = await set(
        'settings_data_sharing=Share%20no%20data&settings_scaling_setup=any_pose&settings_pose_model=openpose&settings_framerate=120&settings_session_name=knee_study&settings_openSimModel=LaiUhlrich2022_shoulder&settings_augmenter_model=v0.2&settings_filter_frequency=80&settings_pose_rate=every_frame',
      );
      expect(neutral.warnings).toEqual([messages.filterFrequencyTooLarge(60)]);
      expect(neutral.meta).toMatchObject({
        sessionName: 'knee_study',
        checkerboard: { rows: 5 },
        settings: {
          data_sharing: 'Share no data',
          framerate: 120,
          filter_frequency: 60,
          augmenter_model: 'v0.2',
          pose_rate: 'every_frame',
          // The second model the web app offers: processing resolves it from these settings (processing-settings.test.ts).
          openSimModel: 'LaiUhlrich2022_shoulder',
        },
      });
      expect((await set('settings_filter_frequency=abc')).warnings).toEqual([messages.filterFrequencyInvalid]);
      expect((await set('settings_filter_frequency=6')).meta.settings.filter_frequency).toBe(6);
      // Lowering the frame rate clamps a stored frequency too.
      expect((await set('settings_filter_frequency=50')).meta.settings.filter_frequency).toBe(50);
      const lowered = await set('settings_framerate=60');
      expect(lowered.meta.settings.filter_frequency).toBe(30);
      expect(lowered.warnings).toEqual([messages.filterFrequencyTooLarge(30)]);
      const invalid = await get(
        `/api/sessions/${session.id}/set_metadata/?settings_framerate=50&cb_rows=x&settings_pose_rate=sometimes`,
      );
      expect(invalid.statusCode).toBe(400);
      expect(Object.keys(invalid.json() as object).sort()).toEqual([
        'cb_rows',
        'settings_framerate',
        'settings_pose_rate',
      ]);
    });

    it('renames with the character rule and sets a subject of the caller only', async () => {
      const session = await newSession();
      const renamed = await send('POST', `/api/sessions/${session.id}/rename/`, { sessionNewName: 'squat-day_2' });
      expect(renamed.json()).toMatchObject({ meta: { sessionName: 'squat-day_2' } });
      expect(
        (await send('POST', `/api/sessions/${session.id}/rename/`, { sessionNewName: 'bad name!' })).json(),
      ).toEqual({
        sessionNewName: [messages.noSpaces],
      });
      expect((await send('POST', `/api/sessions/${session.id}/rename/`, { sessionNewName: '' })).json()).toEqual({
        sessionNewName: [messages.required],
      });
      const foreignSubject = await newSubject({}, other);
      expect((await get(`/api/sessions/${session.id}/set_subject/?subject_id=${foreignSubject.id}`)).statusCode).toBe(
        404,
      );
      const subject = await newSubject({ name: 'Mine' });
      expect((await get(`/api/sessions/${session.id}/set_subject/?subject_id=${subject.id}`)).json()).toMatchObject({
        subject: subject.id,
        name: 'Mine',
      });
    });

    it('lists valid sessions by page with sorting, trash filters, subject filter and skip_no_trials', async () => {
      const user = await verifiedUser(test);
      const subject = await newSubject({ name: 'Listed' }, user);
      const ids: string[] = [];
      for (let index = 0; index < 43; index++) {
        const session = await newSession(user);
        await send(
          'POST',
          `/api/sessions/${session.id}/rename/`,
          { sessionNewName: `s${String(index).padStart(2, '0')}` },
          user,
        );
        ids.push(session.id);
      }
      await get(`/api/sessions/${ids[0]}/set_subject/?subject_id=${subject.id}`, user);
      await seedTrial(test, ids[1], { name: 'walk' });
      await seedTrial(test, ids[1], { name: 'calibration' });
      await seedTrial(test, ids[2], { name: 'neutral' });
      await send('POST', `/api/sessions/${ids[3]}/trash/`, undefined, user);
      const valid = async (body: Record<string, unknown>) =>
        (await send('POST', '/api/sessions/valid/', body, user)).json() as {
          sessions: { id: string; sessionName: string; trials_count: number; trashed: boolean; name: string | null }[];
          total: number;
        };

      const first = await valid({ start: 0, quantity: 40, sort: 'sessionName', sort_desc: false });
      expect(first.total).toBe(42);
      expect(first.sessions).toHaveLength(40);
      expect(first.sessions[0]).toMatchObject({ sessionName: 's00', name: 'Listed', trials_count: 0 });
      const last = await valid({ start: 40, quantity: 40, sort: 'sessionName', sort_desc: false });
      expect(last.sessions.map((session) => session.sessionName)).toEqual(['s41', 's42']);
      expect((await valid({ quantity: -1 })).sessions).toHaveLength(42);
      expect((await valid({ include_trashed: true, quantity: -1 })).total).toBe(43);
      const trashedOnly = await valid({ only_trashed: true });
      expect(trashedOnly.sessions.map((session) => session.id)).toEqual([ids[3]]);
      expect((await valid({ subject_id: subject.id })).sessions.map((session) => session.id)).toEqual([ids[0]]);
      const withTrials = await valid({ skip_no_trials: true });
      expect(withTrials.sessions.map((session) => session.id)).toEqual([ids[1]]);
      expect(withTrials.sessions[0].trials_count).toBe(1); // calibration and neutral are not counted
      const byCount = await valid({ sort: 'trials_count', sort_desc: true, quantity: 1 });
      expect(byCount.sessions[0].id).toBe(ids[1]);

      const search = (await get('/api/sessions/search_sessions/?text=s4', user)).json() as { sessionName: string }[];
      expect(search.map((row) => row.sessionName).sort()).toEqual(['s40', 's41', 's42']);
      expect((await get('/api/sessions/search_sessions/?text=', user)).json()).toHaveLength(42);
    });
  });

  describe('trials', () => {
    it('renames with the uniqueness and reserved-name rules, and not while busy', async () => {
      const session = await newSession();
      const walk = await seedTrial(test, session.id, { name: 'walk' });
      await seedTrial(test, session.id, { name: 'run' });
      const neutral = await seedTrial(test, session.id, { name: 'neutral' });
      const busy = await seedTrial(test, session.id, { name: 'jump', status: 'processing' });
      const rename = (id: string, trialNewName: string) => send('POST', `/api/trials/${id}/rename/`, { trialNewName });

      expect((await rename(walk, 'run')).json()).toEqual({ trialNewName: [messages.uniqueTrialName] });
      expect((await rename(walk, 'RUN')).json()).toEqual({ trialNewName: [messages.uniqueTrialName] });
      expect((await rename(walk, 'calibration')).json()).toEqual({ trialNewName: [messages.trialNameReserved] });
      expect((await rename(walk, 'walk fast')).json()).toEqual({ trialNewName: [messages.noSpaces] });
      expect((await rename(neutral, 'standing')).json()).toEqual({ trialNewName: [messages.neutralCannotBeRenamed] });
      expect((await rename(busy, 'jump2')).json()).toEqual({ trialNewName: [messages.trialBusy] });
      expect((await rename(walk, 'walk')).json()).toMatchObject({ name: 'walk' }); // its own name is fine
      expect((await rename(walk, 'walk_fast-2')).json()).toMatchObject({ name: 'walk_fast-2' });
    });

    it('edits tags, trashes and restores a trial, and removes it with its files', async () => {
      const session = await newSession();
      const trialId = await seedTrial(test, session.id, {
        name: 'squat',
        videos: [{ deviceId: 'phone-a', bytes: Buffer.from('video') }],
        results: [{ tag: 'ik_results', fileName: 'squat.mot', bytes: Buffer.from('mot') }],
      });
      const tagged = await send('POST', `/api/trials/${trialId}/modifyTags/`, { trialNewTags: ['squat', 'squat'] });
      expect(tagged.json()).toMatchObject({ tags: ['squat'] });
      expect((await get(`/api/trial-tags/${trialId}/get_tags_trial/`)).json()).toEqual([{ tag: 'squat' }]);
      expect((await send('POST', `/api/trials/${trialId}/modifyTags/`, { trialNewTags: 'squat' })).json()).toEqual({
        trialNewTags: [messages.tagsNotArray],
      });
      const trial = (await get(`/api/trials/${trialId}/`)).json() as Trial;
      // Absolute (PUBLIC_URL), `<id>-<file name>` last, and a query OpenCap's client can cut at `-`, `_` and `.`.
      const videoUrl = new URL(trial.videos[0].video!);
      expect(videoUrl.origin).toBe('http://kinetrace.test');
      expect(videoUrl.pathname).toMatch(
        new RegExp(
          `^/api/media/files/sessions/${session.id}/trials/${trialId}/videos/phone-a\\.mp4/${trial.videos[0].id}-phone_a\\.mp4$`,
        ),
      );
      expect(videoUrl.search).toMatch(/^\?expires=\d+&signature=[0-9a-f]{64}&access=o$/);
      const resultUrl = trial.results[0].media!;
      expect(resultUrl.slice(resultUrl.lastIndexOf('-') + 1, resultUrl.lastIndexOf('?'))).toBe('squat.mot');
      expect((await get(resultUrl, null)).body).toBe('mot');
      // The name segment is checked for shape; the key and signature decide what is served.
      expect((await get(resultUrl.replace('-squat.mot?', '-x/y?'), null)).statusCode).toBe(403);
      const video = await get(trial.videos[0].video!, null);
      expect(video.body).toBe('video');
      const partial = await test.call({ method: 'GET', url: trial.videos[0].video!, headers: { range: 'bytes=1-3' } });
      expect(partial.statusCode).toBe(206);
      expect(partial.body).toBe('ide');
      expect((await get(trial.videos[0].video!.replace(/signature=[^&]+/, 'signature=forged'), null)).statusCode).toBe(
        403,
      );

      expect((await send('POST', `/api/trials/${trialId}/trash/`)).json()).toMatchObject({ trashed: true });
      expect((await send('POST', `/api/trials/${trialId}/restore/`)).json()).toMatchObject({ trashed: false });
      expect((await send('POST', `/api/trials/${trialId}/permanent_remove/`)).statusCode).toBe(204);
      expect((await get(`/api/trials/${trialId}/`)).statusCode).toBe(404);
      expect(existsSync(join(test.dataDir, 'files', 'sessions', session.id, 'trials', trialId))).toBe(false);
    });
  });

  describe('recycle bin and retention', () => {
    it('lists the trashed trials of active sessions too, and empty bin removes exactly what it listed', async () => {
      const user = await verifiedUser(test);
      const kept = await newSession(user);
      const trashedTrial = await seedTrial(test, kept.id, {
        name: 'old',
        results: [{ tag: 'x', fileName: 'a.txt', bytes: Buffer.from('a') }],
      });
      const keptTrial = await seedTrial(test, kept.id, { name: 'new' });
      const trashedLater = await seedTrial(test, kept.id, { name: 'later' });
      await send('POST', `/api/trials/${trashedTrial}/trash/`, undefined, user);
      const binned = await newSession(user);
      await seedTrial(test, binned.id, { name: 'walk', videos: [{ deviceId: 'cam', bytes: Buffer.from('v') }] });
      await send('POST', `/api/sessions/${binned.id}/trash/`, undefined, user);
      const untouched = await newSession(user);

      const bin = (await get('/api/sessions/recycle_bin/', user)).json() as RecycleBin;
      const summary = (shown: RecycleBin) =>
        shown.sessions.map((row) => ({
          id: row.id,
          trashed: row.trashed,
          trials: row.trashed_trials.map((t) => t.id),
        }));
      expect(summary(bin)).toEqual([
        { id: binned.id, trashed: true, trials: [] },
        { id: kept.id, trashed: false, trials: [trashedTrial] },
      ]);
      expect(bin.sessions.some((row) => row.id === untouched.id)).toBe(false);
      expect((await get('/api/sessions/recycle_bin/', other)).json()).toEqual({ sessions: [] });

      // Trashed after the bin was shown: the bin never listed it, so emptying it keeps it.
      await send('POST', `/api/trials/${trashedLater}/trash/`, undefined, user);
      const listed = {
        trials: bin.sessions.flatMap((row) => row.trashed_trials.map((trial) => trial.id)),
        sessions: bin.sessions.filter((row) => row.trashed).map((row) => row.id),
      };
      // Someone else naming these ids removes nothing.
      expect((await send('POST', '/api/sessions/empty_trash/', listed, other)).json()).toEqual({
        trials: 0,
        sessions: 0,
      });
      const emptied = await send('POST', '/api/sessions/empty_trash/', listed, user);
      expect(emptied.json()).toEqual({ trials: 1, sessions: 1 });
      expect((await get(`/api/sessions/${binned.id}/`, user)).statusCode).toBe(404);
      expect(existsSync(join(test.dataDir, 'files', 'sessions', binned.id))).toBe(false);
      expect(existsSync(join(test.dataDir, 'files', 'sessions', kept.id, 'trials', trashedTrial))).toBe(false);
      const remaining = (await get(`/api/sessions/${kept.id}/`, user)).json() as Session;
      expect(remaining.trials.map((trial) => [trial.id, trial.trashed])).toEqual([
        [keptTrial, false],
        [trashedLater, true],
      ]);
      expect(summary((await get('/api/sessions/recycle_bin/', user)).json() as RecycleBin)).toEqual([
        { id: kept.id, trashed: false, trials: [trashedLater] },
      ]);
    });

    it('refuses an empty bin that does not say what it listed', async () => {
      const refused = await send('POST', '/api/sessions/empty_trash/', {});
      expect(refused.statusCode).toBe(400);
      expect(Object.keys(refused.json() as object).sort()).toEqual(['sessions', 'trials']);
    });

    it('the scheduled purge removes what was trashed 31 days ago with its files, and keeps 29 days', async () => {
      const user = await verifiedUser(test);
      const old = await newSession(user);
      await seedTrial(test, old.id, { name: 'walk', videos: [{ deviceId: 'cam', bytes: Buffer.from('v') }] });
      const recent = await newSession(user);
      const oldSubject = await newSubject({ name: 'Old' }, user);
      const trialSession = await newSession(user);
      const oldTrial = await seedTrial(test, trialSession.id, { name: 'stale' });
      for (const id of [old.id, recent.id]) await send('POST', `/api/sessions/${id}/trash/`, undefined, user);
      await send('POST', `/api/subjects/${oldSubject.id}/trash/`, undefined, user);
      await send('POST', `/api/trials/${oldTrial}/trash/`, undefined, user);
      await backdateTrash(test, 'sessions', old.id, 31);
      await backdateTrash(test, 'sessions', recent.id, 29);
      await backdateTrash(test, 'subjects', oldSubject.id, 31);
      await backdateTrash(test, 'trials', oldTrial, 31);
      expect(existsSync(join(test.dataDir, 'files', 'sessions', old.id))).toBe(true);

      await test.backends.queue.send('purge-trash', {});
      // The job removes each item's rows before its files, and one item after another: wait for all of it.
      const purged = async () => ({
        session: (await get(`/api/sessions/${old.id}/`, user)).statusCode,
        sessionFiles: existsSync(join(test.dataDir, 'files', 'sessions', old.id)),
        subject: (await get(`/api/subjects/${oldSubject.id}/`, user)).statusCode,
        trial: (await get(`/api/trials/${oldTrial}/`, user)).statusCode,
      });
      await expect
        .poll(purged, { timeout: 30_000, interval: 500 })
        .toEqual({ session: 404, sessionFiles: false, subject: 404, trial: 404 });
      expect((await get(`/api/sessions/${recent.id}/`, user)).statusCode).toBe(200);
    });
  });

  describe('downloads', () => {
    async function sessionWithFiles() {
      const subject = await newSubject({ name: 'Zipped', weight: 81, height: 1.9 });
      const session = await newSession();
      await get(`/api/sessions/${session.id}/set_subject/?subject_id=${subject.id}`);
      await send('POST', `/api/sessions/${session.id}/rename/`, { sessionNewName: 'zip_me' });
      await get(
        `/api/sessions/${session.id}/set_metadata/?cb_rows=4&cb_cols=5&cb_square=35&cb_placement=Perpendicular`,
      );
      const video = Buffer.alloc(300_000, 7);
      await seedTrial(test, session.id, {
        name: 'walk',
        videos: [
          { deviceId: 'phone-a', bytes: video },
          { deviceId: 'phone-b', bytes: Buffer.from('second camera') },
        ],
        results: [
          { tag: 'ik_results', fileName: 'walk.mot', bytes: Buffer.from('time\tknee_angle_r\n0\t1\n') },
          { tag: 'marker_data', fileName: 'walk.trc', bytes: Buffer.from('trc') },
        ],
      });
      const trashed = await seedTrial(test, session.id, {
        name: 'gone',
        results: [{ tag: 'ik_results', fileName: 'gone.mot', bytes: Buffer.from('x') }],
      });
      await send('POST', `/api/trials/${trashed}/trash/`);
      return { session, subject, video };
    }

    it('streams a session as a zip in the documented layout with sessionMetadata.yaml', async () => {
      const { session, video } = await sessionWithFiles();
      const response = await get(`/api/sessions/${session.id}/download/`);
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('application/zip');
      expect(response.headers['content-disposition']).toBe('attachment; filename="zip_me.zip"');
      const entries = await unzip(response.rawPayload);
      expect([...entries.keys()].sort()).toEqual([
        'zip_me/MarkerData/walk.trc',
        'zip_me/OpenSimData/Kinematics/walk.mot',
        'zip_me/Videos/Cam0/InputMedia/walk/walk.mp4',
        'zip_me/Videos/Cam1/InputMedia/walk/walk.mp4',
        'zip_me/Videos/mappingCamDevice.pickle',
        'zip_me/sessionMetadata.yaml',
      ]);
      expect(entries.get('zip_me/Videos/Cam0/InputMedia/walk/walk.mp4')!.equals(video)).toBe(true);
      const metadata = parseYaml(entries.get('zip_me/sessionMetadata.yaml')!.toString()) as Record<string, unknown>;
      expect(metadata).toMatchObject({
        subjectID: 'Zipped',
        mass_kg: 81,
        height_m: 1.9,
        checkerBoard: {
          black2BlackCornersHeight_n: 4,
          black2BlackCornersWidth_n: 5,
          squareSideLength_mm: 35,
          placement: 'backWall',
        },
        cameras: { Cam0: { deviceId: 'phone-a' }, Cam1: { deviceId: 'phone-b' } },
      });
    });

    it('prepares an archive in the background: 202 while running, then 200 with a URL to the zip', async () => {
      const { session, subject } = await sessionWithFiles();
      const started = await get(`/api/sessions/${session.id}/async-download/`);
      const taskId = (started.json() as { task_id: string }).task_id;
      const statuses = new Set<number>();
      let url = '';
      await expect
        .poll(
          async () => {
            const poll = await get(`/api/logs/${taskId}/on-ready/`);
            statuses.add(poll.statusCode);
            if (poll.statusCode === 200) url = (poll.json() as { url: string }).url;
            return poll.statusCode;
          },
          { timeout: 30_000, interval: 200 },
        )
        .toBe(200);
      const zip = await get(url, null);
      expect(zip.statusCode).toBe(200);
      expect([...(await unzip(zip.rawPayload)).keys()]).toContain('zip_me/sessionMetadata.yaml');
      expect((await get(`/api/logs/${taskId}/on-ready/`, other)).statusCode).toBe(404); // not someone else's task

      const subjectTask = (await get(`/api/subjects/${subject.id}/async-download/`)).json() as { task_id: string };
      await expect
        .poll(async () => (await get(`/api/logs/${subjectTask.task_id}/on-ready/`)).statusCode, { timeout: 30_000 })
        .toBe(200);
      const subjectZip = await get(`/api/subjects/${subject.id}/download/`);
      expect(subjectZip.headers['content-disposition']).toBe(
        `attachment; filename="subject_results_${subject.id}.zip"`,
      );
      const names = [...(await unzip(subjectZip.rawPayload)).keys()];
      expect(names.some((name) => name.endsWith('/sessionMetadata.yaml') && name.startsWith('zip_me_'))).toBe(true);
    });
  });

  it('serves the tag lists as value/label pairs, Unimpaired among the conditions', async () => {
    const subjects = (await get('/tags/subjectTags.json', null)).json() as { value: string; label: string }[];
    expect(subjects).toEqual(SUBJECT_TAGS);
    expect(subjects.find((tag) => tag.label === 'Unimpaired')).toBeDefined();
    expect((await get('/tags/trialTags.json', null)).json()).toEqual(TRIAL_TAGS);
  });
});
