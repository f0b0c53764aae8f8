import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RESULT_TAGS, type RecordingStatus, type Session, type Trial } from '@kinetrace/contracts';
import { schema } from '@kinetrace/db';
import { describeWithData } from '../../../packages/mocap/test/reference-data.ts';
import { POSE2SIM_QCA } from '../../../packages/mocap/test/calibration/pose2sim-reference.ts';
import { FakePhone, heldPatch } from './support/fake-phone.ts';
import { ensureBuilt, freePort, spawnServer, type ServerProcess } from './support/npm-start.ts';
import { seedEmbeddedDatabase } from './support/pglite-template.ts';
import { DEMO_BOARD_QUERY, makeBoardVideos, type TrialVideos } from './support/processing-fixtures.ts';
import {
  authHeader,
  openTestApp,
  scratchDatabase,
  testBackends,
  verifiedUser,
  type Backend,
} from './support/test-app.ts';

/** How long the server stays down: twice the time after which a silent phone used to be judged lost (15 s). */
const OUTAGE_MS = 30_000;
/** A board calibration of two cameras takes seconds; a machine busy with other test files makes it minutes. */
const PROCESSING_PATIENCE_MS = 240_000;

const backends = await testBackends();

/**
 * Issue 20 (5), "what it must show": the server is killed (kill -9) while two phones upload a trial, stays
 * down 30 s, and starts again on the same data folder and database; the phones resume their uploads and
 * the trial is processed once. The server is `npm start`'s own process; the databases run side by side.
 */
describeWithData('a server killed during uploads and down for 30 s', [POSE2SIM_QCA], () => {
  let videoDir: string;
  let boards: TrialVideos;

  beforeAll(async () => {
    ensureBuilt();
    videoDir = mkdtempSync(join(tmpdir(), 'kinetrace-fault-'));
    boards = await makeBoardVideos(videoDir, 2);
  }, 300_000);
  afterAll(() => rmSync(videoDir, { recursive: true, force: true }));

  it.concurrent.each(backends)(
    'on %s: the phones resume their uploads and the trial is processed once, with its results',
    async (backend: Backend) => {
      const dataDir = mkdtempSync(join(tmpdir(), `kinetrace-fault-${backend}-`));
      const { databaseUrl, dropDatabase } = await scratchDatabase(backend, 'kinetrace_fault');
      if (!databaseUrl) await seedEmbeddedDatabase(dataDir);
      const place = { dataDir, databaseUrl };
      const servers: ServerProcess[] = [];
      const held: { end(): void }[] = [];
      try {
        // The researcher's account and session, made before the server runs (its pairing token read from the database).
        const setup = await openTestApp(place, { LOG_LEVEL: 'warn' }, { runJobs: false });
        const owner = await verifiedUser(setup);
        const session = (
          (await setup.call({ method: 'GET', url: '/api/sessions/new/', headers: authHeader(owner.token) })).json() as [
            Session,
          ]
        )[0];
        const boardSettings = await setup.call({
          method: 'GET',
          url: `/api/sessions/${session.id}/set_metadata/?${DEMO_BOARD_QUERY}`,
          headers: authHeader(owner.token),
        });
        expect(boardSettings.statusCode, boardSettings.body).toBe(200);
        const [{ pairingToken }] = await setup.backends.database.db
          .select({ pairingToken: schema.sessions.pairingToken })
          .from(schema.sessions)
          .where(eq(schema.sessions.id, session.id));
        await setup.close();

        const port = await freePort();
        const start = async () => {
          const server = spawnServer({ dataDir, port, env: databaseUrl ? { DATABASE_URL: databaseUrl } : {} });
          servers.push(server);
          await server.ready();
          return server;
        };
        const first = await start();
        const api = async <T>(path: string) => {
          const response = await fetch(`${first.baseUrl}/api${path}`, { headers: authHeader(owner.token) });
          expect(response.status, `${path}: ${await response.clone().text()}`).toBe(200);
          return (await response.json()) as T;
        };

        // Two phones record the board and begin their uploads.
        const phones = boards.map((_, index) => new FakePhone(first.baseUrl, pairingToken, `fault-phone-${index}`));
        for (const phone of phones) expect((await phone.connect()).status).toBe(200);
        const { id: trialId } = await api<{ id: string }>(`/sessions/${session.id}/record/?name=calibration`);
        await api(`/sessions/${session.id}/stop/`);
        const videos = boards.map((board) => readFileSync(board.path));
        const uploadUrls = await Promise.all(
          phones.map(async (phone, index) => {
            const created = await phone.createUpload(trialId, videos[index].length);
            expect(created.status, created.body).toBe(201);
            return created.location!;
          }),
        );
        const third = (index: number) => Math.floor(videos[index].length / 3);
        for (const [index, phone] of phones.entries())
          expect((await phone.send(uploadUrls[index], videos[index].subarray(0, third(index)), 0)).status).toBe(204);
        // Each phone is sending its next third when the server is killed: the bytes it has are on disk, the rest never arrived.
        for (const [index, url] of uploadUrls.entries())
          held.push(heldPatch(url, pairingToken, videos[index].subarray(third(index), 2 * third(index)), third(index)));
        const staged = (index: number) =>
          join(dataDir, 'uploads', new URL(uploadUrls[index]).pathname.split('/').pop()!);
        await expect
          .poll(
            () => phones.every((_, index) => existsSync(staged(index)) && statSync(staged(index)).size > third(index)),
            {
              timeout: 30_000,
            },
          )
          .toBe(true);
        await first.kill();
        for (const patch of held) patch.end();

        await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS));
        const second = await start();

        // The first phone back polls at once: the trial still waits for both phones' videos.
        const state = await phones[0].state();
        expect(state.uploads_expected).toEqual([{ trial_id: trialId, trial_name: 'calibration' }]);
        expect(await api<RecordingStatus>(`/sessions/${session.id}/status/`)).toMatchObject({
          trial_id: trialId,
          trial_status: 'uploading',
          n_videos_uploaded: 0,
        });

        // Both resume from what the server kept, and end at the same moment as they may.
        const resumed = await Promise.all(
          phones.map(async (phone, index) => {
            const offset = await phone.offset(uploadUrls[index]);
            expect(offset).toBeGreaterThanOrEqual(third(index));
            expect(offset).toBeLessThan(videos[index].length);
            return (await phone.send(uploadUrls[index], videos[index].subarray(offset), offset)).status;
          }),
        );
        expect(resumed).toEqual([204, 204]);

        let trial = await api<Trial>(`/trials/${trialId}/`);
        const deadline = Date.now() + PROCESSING_PATIENCE_MS;
        while (trial.status !== 'done' && trial.status !== 'error' && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 1000));
          trial = await api<Trial>(`/trials/${trialId}/`);
        }
        expect(trial.status, String(trial.meta.error_msg ?? JSON.stringify(trial.meta.progress))).toBe('done');
        expect(trial.videos.map((video) => video.device_id).sort()).toEqual(phones.map((phone) => phone.deviceId));
        const tags = trial.results.map((result) => result.tag);
        expect(tags.filter((tag) => tag === RESULT_TAGS.cameraParameters)).toHaveLength(2);
        expect(tags.filter((tag) => tag === RESULT_TAGS.calibrationImage)).toHaveLength(2);
        expect(await api(`/sessions/${session.id}/get_n_calibrated_cameras/`)).toEqual({ data: 2 });
        await second.stop();

        // One processing run: one job for the trial, done at its first attempt.
        const check = await openTestApp(place, { LOG_LEVEL: 'warn' }, { runJobs: false });
        try {
          const jobs = await check.backends.database.executeSql(
            `select state, retry_count from pgboss.job where name = 'process-trial' and data->>'trialId' = $1`,
            [trialId],
          );
          expect(jobs.rows).toEqual([{ state: 'completed', retry_count: 0 }]);
        } finally {
          await check.close();
        }
      } finally {
        for (const patch of held) patch.end();
        for (const server of servers) await server.kill();
        await dropDatabase();
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
    OUTAGE_MS + PROCESSING_PATIENCE_MS + 240_000,
  );
});
