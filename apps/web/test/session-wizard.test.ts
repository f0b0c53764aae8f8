import {
  PROCESSING_STAGES,
  RESULT_TAGS,
  capturePaths,
  messages,
  type ConnectDeviceRequest,
  type ProcessingProgress,
  type Session,
  type Trial,
} from '@kinetrace/contracts';
import { readCameraFile, writeKinetraceCameras } from '@kinetrace/mocap/camera/formats/index';
import { schema } from '@kinetrace/db';
import { eq } from 'drizzle-orm';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeWithData, referencePath } from '../../../packages/mocap/test/reference-data.ts';
import {
  callApi,
  eventually,
  expectPath,
  expectToast,
  makeUser,
  pickOptions,
  screenshot,
  startSignedIn,
  stopSignedIn,
  trialRow,
  type SeedableServer,
} from './browser-harness.ts';
import { DEMO_PHONE_SOURCES } from './fake-cameras/demo-phone-videos.ts';

/**
 * A lab with two cameras (issue 21): two of the demo's, another pair than the phones' journey
 * (capture-phones.test.ts) films, among those whose neutral the engine scales (issue 25).
 */
const IMPORTED_CAMERAS = ['cam03', 'cam04'];
/** How long an imported trial may take to process: tens of seconds on idle cores, minutes on a busy machine. */
const PROCESSING_PATIENCE_MS = 350_000;
const importedVideos = (trial: 'neutral' | 'trial') =>
  IMPORTED_CAMERAS.map((camera) => referencePath(DEMO_PHONE_SOURCES[trial](camera)));

/**
 * A phone paired through the capture calls its page makes: it connects, then asks for the session's state
 * every half second as the page does (a phone counts as connected while it keeps asking).
 */
async function pairPhone(baseUrl: string, pairingToken: string, deviceId: string): Promise<() => void> {
  const api = (path: string) => `${baseUrl}/api${path}`;
  const request: ConnectDeviceRequest = {
    device_id: deviceId,
    capabilities: {
      model: 'Pixel 8 (Android 15), Chrome 140',
      max_width: 1920,
      max_height: 1080,
      framerates: [30, 60],
      mime_types: ['video/webm'],
    },
  };
  const connected = await fetch(api(capturePaths.connect(pairingToken)), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(request),
  });
  expect(connected.status).toBe(200);
  const timer = setInterval(
    () => void fetch(api(`${capturePaths.state(pairingToken)}?device_id=${deviceId}`)).catch(() => undefined),
    500,
  );
  return () => clearInterval(timer);
}

/** The step the wizard's stepper marks as the current one. */
const currentStep = (page: Page) =>
  page.getByRole('navigation', { name: 'Session set-up steps' }).locator('[aria-current="step"]');

describe('the session wizard: addresses that survive a reload, the stepper, and what the QR code can reach', () => {
  let server: SeedableServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let token: string;
  let sessionId: string;
  const unpairPhones: (() => void)[] = [];
  const user = makeUser('wizard');

  const sessionCount = async () =>
    (await callApi<{ total: number }>(server.baseUrl, token, '/sessions/valid/', { start: 0, quantity: 40 })).total;

  beforeAll(async () => {
    ({ server, browser, context, page, token } = await startSignedIn(user));
  });
  afterAll(async () => {
    for (const unpair of unpairPhones) unpair();
    await stopSignedIn({ server, browser });
  });

  it('first login leaves no empty session behind: the first step and New session take up the one it made', async () => {
    // Signing in without sessions went through Connect devices (§2.8), which made a session for its QR code.
    expect(await sessionCount()).toBe(1);
    await page.goto('/sessions');
    const firstRow = page.getByRole('table', { name: 'Sessions' }).locator('tbody tr').first();
    const madeAtLogin = (await firstRow.locator('td').first().innerText()).trim();
    await page.getByRole('button', { name: 'New session' }).click();
    await expectPath(page, /^\/[0-9a-f-]{36}\/connect-devices$/);
    expect(new URL(page.url()).pathname.split('/')[1]).toBe(madeAtLogin);
    expect(await sessionCount()).toBe(1);
    await screenshot(page, 'wizard-0-new-session-takes-up-the-empty-one');
  });

  it('Connect devices warns that phones cannot open a loopback address, and says how to fix it', async () => {
    await page.goto('/connect-devices');
    await expectPath(page, /^\/[0-9a-f-]{36}\/connect-devices$/);
    sessionId = new URL(page.url()).pathname.split('/')[1];
    // The test server's PUBLIC_URL is http://127.0.0.1:<port>: the QR codes carry it.
    const warning = page.getByTestId('capture-address-warning');
    await warning.waitFor();
    const text = await warning.innerText();
    expect(text).toContain(new URL(server.baseUrl).origin);
    expect(text).toContain('npm start -- --https');
    expect(text).toContain('PUBLIC_URL');
    await screenshot(page, 'wizard-1-connect-devices-warning');
  });

  it('reloading or bookmarking a step opens that session with its phones, and makes no new session', async () => {
    const [session] = await server.backends.database.db
      .select()
      .from(schema.sessions)
      .where(eq(schema.sessions.id, sessionId));
    for (const deviceId of ['phone-one-0001', 'phone-two-0002'])
      unpairPhones.push(await pairPhone(server.baseUrl, session.pairingToken, deviceId));
    await eventually(() => page.getByTestId('devices-connected').textContent()).toBe('2 devices connected');
    const sessionsBefore = await sessionCount();

    await page.getByRole('button', { name: 'Next' }).click();
    await expectPath(page, `/${sessionId}/calibration`);
    await page.reload();
    await expectPath(page, `/${sessionId}/calibration`);
    await eventually(() => page.getByTestId('videos-uploaded').textContent()).toBe('0 of 2 videos uploaded');

    // A bookmark opened in another tab: nothing of the wizard in memory there, only the address.
    const bookmark = await context.newPage();
    await bookmark.goto(`/${sessionId}/neutral`);
    await bookmark.getByRole('heading', { name: 'Neutral pose', level: 2 }).waitFor();
    await expectPath(bookmark, `/${sessionId}/neutral`);
    await bookmark.goto(`/${sessionId}/connect-devices`);
    await eventually(() => bookmark.getByTestId('devices-connected').textContent()).toBe('2 devices connected');
    await expectPath(bookmark, `/${sessionId}/connect-devices`);
    await bookmark.close();

    expect(await sessionCount()).toBe(sessionsBefore);
  });

  it("a step of a session that is not the user's starts at Connect devices, as before", async () => {
    await page.goto('/00000000-0000-4000-8000-000000000000/calibration');
    await expectPath(page, /^\/([0-9a-f-]{36}\/)?connect-devices$/);
  });

  it('a calibration processing far longer than its videos warrant says so, with what to try, and leaves the buttons usable', async () => {
    const calibration = await server.seedTrial(sessionId, 'calibration', 'processing');
    const progress: ProcessingProgress = {
      stage: 'board',
      percent: 30,
      started_at: new Date(Date.now() - 3_600_000).toISOString(),
      expected_s: 20,
    };
    await server.backends.database.db
      .update(schema.trials)
      .set({ meta: { progress } })
      .where(eq(schema.trials.id, calibration));
    // Opened again (a reload): the screen follows the calibration under way.
    await page.goto(`/${sessionId}/calibration`);
    await eventually(() => page.getByTestId('processing-stage').textContent()).toBe(PROCESSING_STAGES.board);
    await eventually(() => page.getByTestId('processing-elapsed').textContent()).toMatch(/^30% · 6\d:\d\d$/);
    await page
      .getByTestId('processing-overdue')
      .getByText(/reprocess the trial from the session menu or record it again/)
      .waitFor();
    await screenshot(page, 'wizard-4-calibration-overdue');
    expect(await page.getByRole('button', { name: 'Back' }).isEnabled()).toBe(true);
    await eventually(() => page.getByRole('button', { name: 'Calibrate' }).isEnabled()).toBe(true);

    // The runner gives up with a message of its own: shown with what to try.
    const errorMessage = 'No checkerboard found in the video of camera phone-one-0001.';
    await server.backends.database.db
      .update(schema.trials)
      .set({ status: 'error', meta: { error_msg: errorMessage } })
      .where(eq(schema.trials.id, calibration));
    await expectToast(page, errorMessage);
    await page.getByTestId('calibration-error').getByText(errorMessage).waitFor();
  });

  it('the stepper marks the current step and leads back to the earlier ones', async () => {
    await page.goto(`/${sessionId}/neutral`);
    await eventually(() => currentStep(page).innerText()).toContain('Neutral');
    await screenshot(page, 'wizard-2-stepper-neutral');
    await page.getByRole('button', { name: /Calibration/ }).click();
    await expectPath(page, `/${sessionId}/calibration`);
    await eventually(() => currentStep(page).innerText()).toContain('Calibration');
    await page.getByRole('button', { name: /Connect devices/ }).click();
    await expectPath(page, `/${sessionId}/connect-devices`);
    await eventually(() => currentStep(page).innerText()).toContain('Connect devices');
  });

  it('the Neutral panel shows an example image and two example videos of our model in the pose; Any pose shows its notice for 8 s', async () => {
    const neutral = await context.newPage();
    await neutral.clock.install();
    await neutral.goto(`/${sessionId}/neutral`);
    const image = neutral.getByRole('img', { name: 'Example image: the neutral pose from the front' });
    await image.waitFor();
    // The model stands upright (about 1.6 m from the ground to the nose), arms straight at its sides.
    const bones = await image
      .locator('line[stroke-linecap=round]')
      .evaluateAll((lines) =>
        lines.map((line) => ['x1', 'y1', 'x2', 'y2'].map((name) => Number(line.getAttribute(name)))),
      );
    expect(bones).toHaveLength(20);
    const xs = bones.flatMap(([x1, , x2]) => [x1, x2]);
    const ys = bones.flatMap(([, y1, , y2]) => [y1, y2]);
    expect(Math.max(...ys) - Math.min(...ys)).toBeGreaterThan(1.5);
    expect(Math.max(...ys) - Math.min(...ys)).toBeLessThan(1.7);
    expect(Math.max(...xs) - Math.min(...xs), 'arms at the sides').toBeLessThan(0.45);
    for (const [title, seconds] of [
      ['Getting into the pose, then holding still', '5s'],
      ['The pose from every side', '6s'],
    ]) {
      const video = neutral.getByRole('img', { name: `Example video: ${title}` });
      const animations = await video
        .locator('animate')
        .evaluateAll((elements) =>
          elements.map((element) => [element.getAttribute('dur'), element.getAttribute('values')]),
        );
      expect(animations.length).toBe(4 * 20 + 2);
      expect(animations.every(([dur]) => dur === seconds)).toBe(true);
      // The figure moves: some coordinate takes many values over the loop.
      expect(Math.max(...animations.map(([, values]) => new Set(values!.split(';')).size))).toBeGreaterThan(10);
    }
    await screenshot(neutral, 'wizard-3-neutral-examples');

    await neutral.getByRole('button', { name: 'Advanced Settings' }).click();
    await neutral.getByRole('combobox', { name: 'Scaling setup' }).click();
    await neutral.getByRole('option', { name: 'Any pose', exact: true }).click();
    await neutral.getByRole('dialog', { name: 'Advanced Settings' }).getByRole('button', { name: 'Save' }).click();
    const notice = neutral.getByTestId('toast-message').filter({ hasText: messages.anyPoseNotice });
    await notice.waitFor();
    await screenshot(neutral, 'wizard-3-neutral-any-pose-notice');
    // The page's clock stands still from here, and moves only as the test says.
    await neutral.clock.pauseAt(Date.now() + 100);
    await neutral.clock.runFor(6_000);
    expect(await notice.isVisible()).toBe(true);
    await neutral.clock.runFor(2_500);
    await neutral.clock.resume();
    await notice.waitFor({ state: 'detached' });
    await neutral.close();
  });
});

describeWithData(
  'a lab with two cameras and no phones: import a calibration, the neutral and a trial, to joint angles',
  [
    DEMO_PHONE_SOURCES.calibration,
    ...IMPORTED_CAMERAS.flatMap((camera) => [DEMO_PHONE_SOURCES.neutral(camera), DEMO_PHONE_SOURCES.trial(camera)]),
  ],
  () => {
    let server: SeedableServer;
    let browser: Browser;
    let page: Page;
    let token: string;
    let firstSessionId: string;
    const user = makeUser('importer');

    /** Waits until the newest trial named `name` has finished processing; answers it. */
    async function processed(sessionId: string, name: string): Promise<Trial> {
      await expect
        .poll(
          async () =>
            (await callApi<Session>(server.baseUrl, token, `/sessions/${sessionId}/`)).trials
              .filter((trial) => trial.name === name)
              .at(-1)?.status,
          // Real videos through the real pose model: minutes on a busy machine.
          { timeout: PROCESSING_PATIENCE_MS, interval: 1000 },
        )
        .toMatch(/^(done|error)$/);
      const trial = (await callApi<Session>(server.baseUrl, token, `/sessions/${sessionId}/`)).trials
        .filter((one) => one.name === name)
        .at(-1)!;
      return callApi<Trial>(server.baseUrl, token, `/trials/${trial.id}/`);
    }

    beforeAll(async () => {
      ({ server, browser, page, token } = await startSignedIn(user));
    });
    afterAll(() => stopSignedIn({ server, browser }));

    it("one calibration file per camera calibrates the demo's two cameras and the wizard goes on to Neutral", async () => {
      await page.goto('/connect-devices');
      await expectPath(page, /^\/[0-9a-f-]{36}\/connect-devices$/);
      const sessionId = new URL(page.url()).pathname.split('/')[1];
      await page.getByRole('button', { name: 'Next' }).click();
      await expectPath(page, `/${sessionId}/calibration`);

      await page.getByRole('button', { name: 'Import a calibration file' }).click();
      const dialog = page.getByRole('dialog', { name: 'Import a calibration file' });
      await dialog.getByRole('button', { name: 'Import' }).click();
      await dialog.getByText(messages.required).waitFor();
      // The demo's Qualisys calibration, one Kinetrace file per camera, as a lab exports them.
      const cameras = await readCameraFile(referencePath(DEMO_PHONE_SOURCES.calibration));
      await dialog.locator('input[type="file"]').setInputFiles(
        IMPORTED_CAMERAS.map((name) => ({
          name: `${name}.json`,
          mimeType: 'application/json',
          buffer: Buffer.from(writeKinetraceCameras(cameras.filter((camera) => camera.name === name))),
        })),
      );
      await screenshot(page, 'wizard-3-import-calibration');
      await dialog.getByRole('button', { name: 'Import' }).click();
      await expectToast(page, messages.camerasCalibrated(IMPORTED_CAMERAS.length));
      await expectPath(page, `/${sessionId}/neutral`);
      await eventually(() => currentStep(page).innerText()).toContain('Neutral');
      await screenshot(page, 'wizard-5-neutral');
      firstSessionId = sessionId;
    });

    it("Next subject opens a new session at its Neutral step, with the first session's calibration", async () => {
      await page.goto(`/session/${firstSessionId}`);
      await page.getByRole('button', { name: 'Next subject' }).click();
      await expectPath(page, /^\/[0-9a-f-]{36}\/neutral$/);
      const nextSessionId = new URL(page.url()).pathname.split('/')[1];
      expect(nextSessionId).not.toBe(firstSessionId);
      await page.getByRole('heading', { name: 'Neutral pose', level: 2 }).waitFor();
      expect(await callApi(server.baseUrl, token, `/sessions/${nextSessionId}/get_n_calibrated_cameras/`)).toEqual({
        data: IMPORTED_CAMERAS.length,
      });
    });

    it('the lens-calibration dialog puts what is wrong on the field it is about', async () => {
      await page.goto(`/session/${firstSessionId}`);
      await page.getByRole('button', { name: 'Session menu' }).click();
      await page.getByRole('menuitem', { name: 'Lens calibrations' }).click();
      const dialog = page.getByRole('dialog', { name: 'Lens calibrations' });
      await dialog.getByText(/No lens calibration yet/).waitFor();
      await dialog.getByRole('button', { name: 'Save lens calibration' }).click();
      await dialog.getByText('Name the device model.').waitFor();
      await dialog.getByRole('textbox', { name: 'Device model' }).fill('Pixel 8');
      await dialog
        .locator('input[type="file"]')
        .setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('not a calibration') });
      await dialog.getByRole('button', { name: 'Save lens calibration' }).click();
      // The server's refusal, on the files field.
      await dialog.getByText(/"notes\.txt" is neither a `kinetrace calibrate` \.json file nor a board image/).waitFor();
      await screenshot(page, 'session-lens-calibrations');
    });

    it(
      "Import neutral videos on the Neutral step follows the imported neutral with the runner's stage, to the session once scaled",
      async () => {
        await callApi(server.baseUrl, token, '/subjects/', {
          name: 'Balancer',
          weight: 69,
          height: 1.72,
          birth_year: 1990,
          subject_tags: ['unimpaired'],
          terms: true,
        });
        await page.goto(`/${firstSessionId}/neutral`);
        const importButton = page.getByRole('button', { name: 'Import neutral videos' });
        // Subject, consent and data sharing first: the neutral trial is processed with them.
        await eventually(() => importButton.isDisabled()).toBe(true);
        await page.getByRole('combobox', { name: 'Subject' }).click();
        await page.getByRole('option', { name: /Balancer/ }).click();
        await page.getByRole('checkbox', { name: /agrees/ }).check();
        await page.getByRole('combobox', { name: 'Data sharing' }).click();
        await page.getByRole('option', { name: 'Share processed data', exact: true }).click();
        await importButton.click();
        const dialog = page.getByRole('dialog', { name: 'Import neutral videos' });
        await dialog.locator('input[type="file"]').setInputFiles(importedVideos('neutral'));
        await dialog.getByRole('button', { name: 'Import' }).click();
        // The page keeps asking the recorder's status meanwhile: the import must not be taken for phones gone missing.
        await eventually(() => page.getByTestId('processing-stage').textContent()).toBe(PROCESSING_STAGES.pose);
        await eventually(() => page.getByTestId('processing-elapsed').textContent()).toMatch(/^\d+% · \d\d:\d\d$/);
        await expect(page.getByTestId('neutral-error').count()).resolves.toBe(0);
        await screenshot(page, 'wizard-6-neutral-import-processing');

        const neutral = await processed(firstSessionId, 'neutral');
        expect([neutral.status, neutral.meta.error_msg]).toEqual(['done', undefined]);
        await expectPath(page, `/session/${firstSessionId}`);
      },
      PROCESSING_PATIENCE_MS + 60_000,
    );

    it(
      'videos imported as a trial from the session menu are processed to joint angles the Chart page draws',
      async () => {
        await page.getByRole('button', { name: 'Session menu' }).click();
        await page.getByRole('menuitem', { name: 'Import videos as a trial' }).click();
        const dialog = page.getByRole('dialog', { name: 'Import videos' });
        await dialog.getByRole('textbox', { name: 'Trial name' }).fill('balancing');
        await dialog.locator('input[type="file"]').setInputFiles(importedVideos('trial'));
        await dialog.getByRole('button', { name: 'Import' }).click();
        await dialog.waitFor({ state: 'detached' });
        await trialRow(page, 'balancing').waitFor();

        const balancing = await processed(firstSessionId, 'balancing');
        expect([balancing.status, balancing.meta.error_msg]).toEqual(['done', undefined]);
        await trialRow(page, 'balancing')
          .getByTestId('trial-status')
          .filter({ hasText: /^done$/ })
          .waitFor();
        await trialRow(page, 'balancing').getByText('balancing', { exact: true }).click();
        await page
          .getByRole('list', { name: 'Results of balancing' })
          .getByRole('link', { name: RESULT_TAGS.ikResults, exact: true })
          .waitFor();

        await page.goto(`/dashboard/${firstSessionId}`);
        await pickOptions(page, 'Trials', ['balancing']);
        await pickOptions(page, 'Y quantities', ['knee_angle_r']);
        await eventually(() => page.getByTestId('chart').getAttribute('aria-label')).toMatch(/knee_angle_r/);
        await screenshot(page, 'wizard-7-imported-trial-chart');
      },
      PROCESSING_PATIENCE_MS + 60_000,
    );
  },
);
