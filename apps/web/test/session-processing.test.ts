import { PROCESSING_STAGES, messages, type ProcessingProgress, type Session } from '@kinetrace/contracts';
import { schema } from '@kinetrace/db';
import { eq } from 'drizzle-orm';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  callApi,
  chooseRowAction,
  eventually,
  expectPath,
  expectToast,
  makeUser,
  screenshot,
  startSignedIn,
  stopSignedIn,
  trialRow,
  type SeedableServer,
} from './browser-harness.ts';

/** Two cameras' videos: enough for the server to accept a trial as reprocessable (these tests never decode them). */
const videos = ['cam01', 'cam02'].map((deviceId) => ({
  deviceId,
  bytes: Buffer.from(`not a real video of ${deviceId}`),
}));

describe('the session screen follows processing: progress in the trial list, reprocess, opening a processed trial', () => {
  let server: SeedableServer;
  let browser: Browser;
  let page: Page;
  let token: string;
  let session: Session;
  let walking: string;
  const user = makeUser('processor');

  /** Writes the runner's progress into a trial, as the runner does while it works: this test is about how the page shows it. */
  const writeProgress = (trialId: string, progress: ProcessingProgress) =>
    server.backends.database.db.update(schema.trials).set({ meta: { progress } }).where(eq(schema.trials.id, trialId));

  beforeAll(async () => {
    ({ server, browser, page, token } = await startSignedIn(user));
    [session] = await callApi<Session[]>(server.baseUrl, token, '/sessions/new/');
    await callApi(server.baseUrl, token, `/sessions/${session.id}/rename/`, { sessionNewName: 'gait_visit' });
    walking = await server.seedTrial(session.id, 'walk_1', 'processing');
    await server.seedTrial(session.id, {
      name: 'walk_2',
      status: 'done',
      videos,
      results: [
        {
          tag: 'ik_results',
          fileName: 'walk_2.mot',
          bytes: Buffer.from('Coordinates\nendheader\ntime\tknee_angle_r\n0\t12.5\n'),
        },
      ],
    });
  });
  afterAll(() => stopSignedIn({ server, browser }));

  it("shows a processing trial's stage and percentage, and follows them as the list refreshes", async () => {
    await writeProgress(walking, {
      stage: 'triangulate',
      percent: 42,
      started_at: new Date().toISOString(),
      expected_s: 60,
    });
    await page.goto(`/session/${session.id}`);
    const progress = trialRow(page, 'walk_1').getByTestId('trial-progress');
    await eventually(() => progress.textContent()).toBe(`${PROCESSING_STAGES.triangulate} · 42%`);
    await screenshot(page, 'session-trial-progress');
    // The runner moves on; the list shows it at its next refresh (every 5 s, §9) without a reload.
    await writeProgress(walking, {
      stage: 'scale_ik',
      percent: 71,
      started_at: new Date().toISOString(),
      expected_s: 60,
    });
    await eventually(() => progress.textContent()).toBe(`${PROCESSING_STAGES.scale_ik} · 71%`);
  });

  it('a trial still processing says so when clicked; a processed one opens with its results', async () => {
    await trialRow(page, 'walk_1').getByRole('cell', { name: 'walk_1', exact: true }).click();
    await expectToast(page, messages.trialQueued);
    await expect(page.getByTestId('trial-view').count()).resolves.toBe(0);
    await trialRow(page, 'walk_2').getByRole('cell', { name: 'walk_2', exact: true }).click();
    const view = page.getByTestId('trial-view');
    await view.getByRole('heading', { name: 'walk_2' }).waitFor();
    const result = view.getByRole('link', { name: 'ik_results' });
    const mot = await fetch(new URL((await result.getAttribute('href'))!, server.baseUrl));
    expect(await mot.text()).toContain('knee_angle_r');
  });

  it('Reprocess in the trial menu queues the trial again, and the list shows it as reprocess', async () => {
    const sent = page.waitForResponse(
      (response) => response.url().endsWith(`/reprocess/`) && response.request().method() === 'POST',
    );
    await chooseRowAction(page, 'trial walk_2', 'Reprocess');
    const response = await sent;
    expect(response.status()).toBe(200);
    const walk2 = (await callApi<Session>(server.baseUrl, token, `/sessions/${session.id}/`)).trials.find(
      (trial) => trial.name === 'walk_2',
    )!;
    expect(await response.json()).toEqual({ trials: [walk2.id] });
    await expectToast(page, messages.trialQueuedForReprocessing);
    // No neutral trial in this session yet: the trial waits for it, queued for reprocessing.
    await eventually(() => trialRow(page, 'walk_2').getByTestId('trial-status').textContent()).toBe('reprocess');
    await screenshot(page, 'session-trial-reprocess');
  });

  it("the session menu calibrates the session's cameras again in the wizard, starting from its board", async () => {
    await callApi(
      server.baseUrl,
      token,
      `/sessions/${session.id}/set_metadata/?cb_rows=6&cb_cols=9&cb_square=24.5&cb_placement=Lying`,
    );
    await page.reload();
    await page.getByRole('button', { name: 'Session menu' }).click();
    await page.getByRole('menuitem', { name: 'Calibrate again' }).click();
    await expectPath(page, `/${session.id}/calibration`);
    await page.getByRole('heading', { name: 'Calibration', level: 2 }).waitFor();
    await eventually(async () => [
      await page.getByRole('textbox', { name: 'Rows' }).inputValue(),
      await page.getByRole('textbox', { name: 'Columns' }).inputValue(),
      await page.getByRole('textbox', { name: 'Square size (mm)' }).inputValue(),
      await page.getByRole('combobox', { name: 'Placement' }).inputValue(),
    ]).toEqual(['6', '9', '24.5', 'Lying']);
    await screenshot(page, 'calibration-stored-board');
  });
});
