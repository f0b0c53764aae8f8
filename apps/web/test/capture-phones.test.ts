import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { messages, type Session } from '@kinetrace/contracts';
import { schema } from '@kinetrace/db';
import { and, eq } from 'drizzle-orm';
import { chromium, type Browser, type Page } from 'playwright-core';
import QRCode from 'qrcode';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithData, referencePath } from '../../../packages/mocap/test/reference-data.ts';
import { buildApp } from '../../server/src/app.ts';
import { openBackends, type Backends } from '../../server/src/backends.ts';
import { loadConfig } from '../../server/src/config.ts';
import { markCalibrationProcessed } from '../../server/test/support/seed.ts';
import type { TestApp } from '../../server/test/support/test-app.ts';
import {
  CHROMIUM_ARGS,
  callApi,
  ensureWebBuilt,
  expectPath,
  expectToast,
  launchBrowser,
  makeUser,
  newContext,
  screenshot,
  signUpAndSignIn,
  tokenOf,
  Mailbox,
  type RunningServer,
} from './browser-harness.ts';

/** What the pages show within a few of their polls (vitest's own poll gives up after 1 s). */
const eventually = <Value>(read: () => Promise<Value> | Value) => expect.poll(read, { timeout: 30_000 });

const VIDEOS = 'pose2sim_demo/Pose2Sim/Demo_SinglePerson/videos';
const ffmpegPath = (createRequire(import.meta.url)('@ffmpeg-installer/ffmpeg') as { path: string }).path;

/** A phone-sized, short raw video that chromium's fake camera plays in a loop. */
function makeFakeCameraFile(source: string, target: string): void {
  execFileSync(ffmpegPath, ['-v', 'error', '-y', '-i', source, '-t', '1.5', '-vf', 'scale=360:640,fps=30', '-pix_fmt', 'yuv420p', target]);
}

/** A phone: its own chromium process whose camera is the given file. */
function launchPhone(fakeVideo: string): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: [...CHROMIUM_ARGS, '--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream', `--use-file-for-fake-video-capture=${fakeVideo}`],
  });
}

async function openPhonePage(phone: Browser, url: string): Promise<Page> {
  const context = await phone.newContext({ viewport: { width: 390, height: 844 } });
  context.setDefaultTimeout(20_000);
  const page = await context.newPage();
  await page.goto(url);
  return page;
}

/** A port nobody listens on, so that the public URL in the QR code is known before the server starts. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/**
 * The server inside the test process (the harness's in-process server, plus its backends): the test
 * completes the calibration and the neutral trial as the later worker will.
 */
async function startCaptureServer(): Promise<RunningServer & { backends: Backends }> {
  ensureWebBuilt();
  const port = await freePort();
  const dataDir = await mkdtemp(join(tmpdir(), 'kinetrace-capture-test-'));
  const baseUrl = `http://127.0.0.1:${port}`;
  const config = loadConfig({ PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, PUBLIC_URL: baseUrl, LOG_LEVEL: 'warn' });
  const backends = await openBackends(config, () => undefined);
  const app = await buildApp(config, backends);
  await app.listen({ port, host: '127.0.0.1' });
  return {
    baseUrl,
    dataDir,
    backends,
    mailbox: new Mailbox(join(dataDir, 'outbox')),
    async stop() {
      await app.close();
      await backends.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

describeWithData('two phones pair by QR code and record calibration, neutral and a trial', [`${VIDEOS}/cam01.mp4`, `${VIDEOS}/cam02.mp4`], () => {
  let server: RunningServer & { backends: Backends };
  let researcherBrowser: Browser;
  let researcher: Page;
  const phoneBrowsers: Browser[] = [];
  const phones: Page[] = [];
  let workDir: string;
  let sessionId: string;
  let token: string;
  const user = makeUser('capturer');

  const phoneText = (phone: Page, testId: string) => phone.getByTestId(testId);
  const pairingTokenOf = async (id: string) =>
    (await server.backends.database.db.select().from(schema.sessions).where(eq(schema.sessions.id, id)))[0].pairingToken;

  beforeAll(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'kinetrace-fake-cameras-'));
    for (const camera of ['cam01', 'cam02']) makeFakeCameraFile(referencePath(`${VIDEOS}/${camera}.mp4`), join(workDir, `${camera}.y4m`));
    [server, researcherBrowser] = await Promise.all([startCaptureServer(), launchBrowser()]);
    researcher = await (await newContext(researcherBrowser, server.baseUrl)).newPage();
    await signUpAndSignIn(researcher, server, user);
    token = await tokenOf(researcher);
  });

  afterAll(async () => {
    await Promise.all([researcherBrowser, ...phoneBrowsers].map((browser) => browser?.close()));
    await server?.stop();
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  it('Connect devices shows the session QR code; each phone opening it pairs and shows its camera', async () => {
    // The wizard's first step starts a new session (where New session, or a first sign-in, leads).
    await researcher.goto('/connect-devices');
    await expectPath(researcher, /^\/[0-9a-f-]{36}\/connect-devices$/);
    sessionId = new URL(researcher.url()).pathname.split('/')[1];
    await expectToast(researcher, messages.captureAppNotice);

    // The QR image on the page encodes the session's capture address.
    const captureUrl = `${server.baseUrl}/capture/${await pairingTokenOf(sessionId)}`;
    const qrImage = researcher.getByRole('img', { name: 'QR code to connect a phone' });
    await eventually(() => qrImage.getAttribute('src')).toBe(await QRCode.toDataURL(captureUrl, { margin: 1, width: 256 }));
    await screenshot(researcher, 'capture-1-connect-devices');

    for (const camera of ['cam01', 'cam02']) {
      const phone = await launchPhone(join(workDir, `${camera}.y4m`));
      phoneBrowsers.push(phone);
      phones.push(await openPhonePage(phone, captureUrl));
    }
    for (const phone of phones) {
      await eventually(() => phoneText(phone, 'phone-connection').textContent()).toBe('Connected');
      await eventually(() => phoneText(phone, 'phone-cameras').textContent()).toBe('Cameras connected: 2');
      // The preview plays the camera.
      await eventually(() => phone.getByLabel('Camera preview').evaluate((video: HTMLVideoElement) => video.videoWidth)).toBeGreaterThan(0);
      expect(await phoneText(phone, 'phone-session').textContent()).toContain('Session:');
    }
    await screenshot(phones[0], 'capture-2-phone-paired');
    await eventually(() => researcher.getByTestId('devices-connected').textContent()).toBe('2 devices connected');
  });

  it('Calibration records both phones, shows the uploads and Processing, and moves on once calibrated', async () => {
    await researcher.getByRole('button', { name: 'Next' }).click();
    await expectPath(researcher, `/${sessionId}/calibration`);
    await eventually(() => researcher.getByRole('textbox', { name: 'Rows' }).inputValue()).toBe('4');
    expect(await researcher.getByRole('textbox', { name: 'Columns' }).inputValue()).toBe('5');
    expect(await researcher.getByRole('textbox', { name: 'Square size (mm)' }).inputValue()).toBe('35');
    await eventually(() => researcher.getByTestId('videos-uploaded').textContent()).toBe('0 of 2 videos uploaded');
    await screenshot(researcher, 'capture-3-calibration');
    // The header's Reconnect phone shows the same QR code.
    await researcher.getByRole('button', { name: 'Reconnect phone' }).click();
    await researcher.getByRole('dialog', { name: 'Reconnect phone' }).getByRole('img', { name: 'QR code to connect a phone' }).waitFor();
    await researcher.keyboard.press('Escape');
    await researcher.getByRole('dialog', { name: 'Reconnect phone' }).waitFor({ state: 'detached' });

    await researcher.getByRole('button', { name: 'Calibrate' }).click();
    await eventually(() => researcher.getByTestId('calibration-stage').textContent()).toBe('Recording…');
    for (const phone of phones) await phoneText(phone, 'phone-recording').filter({ hasText: 'Recording calibration' }).waitFor();
    await screenshot(phones[1], 'capture-4-phone-recording');
    await expectToast(researcher, messages.processing);
    await eventually(() => researcher.getByTestId('videos-uploaded').textContent()).toBe('2 of 2 videos uploaded');
    for (const phone of phones) {
      await phoneText(phone, 'phone-upload').filter({ hasText: 'Video of calibration: uploaded' }).waitFor();
      await eventually(() => phoneText(phone, 'phone-videos').textContent()).toBe('Videos uploaded: 2');
    }
    await screenshot(phones[0], 'capture-5-phone-uploaded');
    // The server stored one video per phone, each with the time of its first frame on the server clock.
    const session = await callApi<Session>(server.baseUrl, token, `/sessions/${sessionId}/`);
    const calibration = session.trials.find((trial) => trial.name === 'calibration');
    expect(calibration?.status).toBe('processing');
    expect(calibration?.videos).toHaveLength(2);
    expect(await researcher.getByTestId('calibration-stage').textContent()).toBe('Processing…');

    // What the worker will do: the calibration is processed, with camera parameters for both phones.
    expect(await markCalibrationProcessed(server.backends as TestApp['backends'], sessionId)).toHaveLength(2);
    await expectToast(researcher, messages.camerasCalibrated(2));
    await expectPath(researcher, `/${sessionId}/neutral`);
  });

  it('Neutral needs subject, consent and data sharing, records, and shows Processing with the relax notice', async () => {
    await callApi(server.baseUrl, token, '/subjects/', {
      name: 'Walker',
      weight: 72,
      height: 1.75,
      birth_year: 1990,
      subject_tags: ['unimpaired'],
      terms: true,
    });
    const record = researcher.getByRole('button', { name: 'Record' });
    await eventually(() => record.isDisabled()).toBe(true);
    await researcher.getByRole('combobox', { name: 'Subject' }).click();
    await researcher.getByRole('option', { name: /Walker/ }).click();
    await researcher.getByRole('checkbox', { name: /agrees/ }).check();
    await researcher.getByRole('combobox', { name: 'Data sharing' }).click();
    await researcher.getByRole('option', { name: 'Share processed data', exact: true }).click();
    await researcher.getByRole('textbox', { name: 'Session name (optional)' }).fill('gait_lab');
    await eventually(() => record.isDisabled()).toBe(false);
    await screenshot(researcher, 'capture-6-neutral');

    await record.click();
    await researcher.getByRole('button', { name: 'Recording' }).waitFor();
    for (const phone of phones) await phoneText(phone, 'phone-recording').filter({ hasText: 'Recording neutral' }).waitFor();
    await expectToast(researcher, messages.processingSubjectCanRelax);
    await researcher.getByRole('button', { name: 'Processing' }).waitFor();
    await eventually(() => researcher.getByTestId('videos-uploaded').textContent()).toBe('2 of 2 videos uploaded');
    await screenshot(researcher, 'capture-7-neutral-processing');
    const session = await callApi<Session>(server.baseUrl, token, `/sessions/${sessionId}/`);
    expect(session.meta.sessionName).toBe('gait_lab');
    expect(session.trials.find((trial) => trial.name === 'neutral')?.status).toBe('processing');

    // What the worker will do: the neutral trial is processed, and the wizard opens the session.
    const { db } = server.backends.database;
    await db
      .update(schema.trials)
      .set({ status: 'done' })
      .where(and(eq(schema.trials.sessionId, sessionId), eq(schema.trials.name, 'neutral')));
    await expectPath(researcher, `/session/${sessionId}`);
  });

  it('the Session recorder records a named trial with both phones: Stop recording mm:ss, then Cancel Upload while uploading', async () => {
    const start = researcher.getByRole('button', { name: 'Start recording' });
    await researcher.getByRole('textbox', { name: 'Trial name' }).fill('walk#1');
    await start.click();
    await researcher.getByText(messages.alphaDashCustom).waitFor();
    await researcher.getByRole('textbox', { name: 'Trial name' }).fill('walk_1');
    await start.click();
    const stop = researcher.getByRole('button', { name: /^Stop recording \d\d:\d\d$/ });
    await stop.waitFor();
    for (const phone of phones) await phoneText(phone, 'phone-recording').filter({ hasText: /Recording walk_1 \d\d:\d\d/ }).waitFor();
    await researcher.getByRole('button', { name: /^Stop recording 00:0[2-9]$/ }).waitFor();
    await screenshot(researcher, 'capture-8-session-recording');
    await stop.click();
    await researcher.getByRole('button', { name: 'Cancel Upload' }).or(start).first().waitFor();
    await start.waitFor({ timeout: 30_000 });
    for (const phone of phones) await phoneText(phone, 'phone-upload').filter({ hasText: 'Video of walk_1: uploaded' }).waitFor();
    const session = await callApi<Session>(server.baseUrl, token, `/sessions/${sessionId}/`);
    const walk = session.trials.find((trial) => trial.name === 'walk_1');
    expect(walk?.status).toBe('processing');
    expect(walk?.videos).toHaveLength(2);
    await researcher.getByRole('table', { name: 'Trials' }).getByText('walk_1').waitFor();
    await screenshot(researcher, 'capture-9-session-after-upload');
    // A trial waiting for processing says so when clicked (§4.3).
    await researcher.getByRole('table', { name: 'Trials' }).getByText('walk_1').click();
    await expectToast(researcher, messages.trialQueued);
  });

  it('a phone reloaded before its upload went through uploads the video it kept after the reload', async () => {
    const [phone] = phones;
    // The phone's uploads fail (a dead network), so its video stays in the phone's storage.
    await phone.route('**/api/capture/uploads/**', (route) => route.abort('internetdisconnected'));
    const start = researcher.getByRole('button', { name: 'Start recording' });
    await researcher.getByRole('textbox', { name: 'Trial name' }).fill('walk_reload');
    await start.click();
    // Phones start 1.5 s after the order: stop once both have a second of video.
    for (const each of phones) await phoneText(each, 'phone-recording').filter({ hasText: /Recording walk_reload 00:0[1-9]/ }).waitFor();
    await researcher.getByRole('button', { name: /^Stop recording/ }).click();
    await phoneText(phones[1], 'phone-upload').filter({ hasText: 'Video of walk_reload: uploaded' }).waitFor();
    await phoneText(phone, 'phone-upload').filter({ hasText: 'Video of walk_reload: uploading' }).waitFor();
    await eventually(() => researcher.getByTestId('recorder-uploads').textContent()).toBe('1 of 2 videos uploaded');

    await phone.unrouteAll();
    await phone.reload();
    await phoneText(phone, 'phone-upload').filter({ hasText: 'Video of walk_reload: uploaded' }).waitFor();
    await start.waitFor();
    const session = await callApi<Session>(server.baseUrl, token, `/sessions/${sessionId}/`);
    const trial = session.trials.find((candidate) => candidate.name === 'walk_reload');
    expect(trial?.status).toBe('processing');
    expect(trial?.videos).toHaveLength(2);
  });

  it('a phone that disappears mid-recording ends the trial with the missing-videos message; the session stays usable', async () => {
    const start = researcher.getByRole('button', { name: 'Start recording' });
    await researcher.getByRole('textbox', { name: 'Trial name' }).fill('walk_2');
    await start.click();
    for (const each of phones) await phoneText(each, 'phone-recording').filter({ hasText: /Recording walk_2 00:0[1-9]/ }).waitFor();
    await phoneBrowsers[1].close();
    await researcher.getByRole('button', { name: /^Stop recording/ }).click();
    await researcher.getByRole('button', { name: 'Cancel Upload' }).waitFor();
    // The server gives up on the lost phone after 15 s without a poll.
    await researcher.getByTestId('toast-message').filter({ hasText: messages.videosMissing(2, 1) }).first().waitFor({ timeout: 45_000 });
    await start.waitFor();
    expect(await start.isEnabled()).toBe(true);
    const session = await callApi<Session>(server.baseUrl, token, `/sessions/${sessionId}/`);
    expect(session.trials.find((trial) => trial.name === 'walk_2')?.status).toBe('error');
    await screenshot(researcher, 'capture-10-phone-lost');
  });

  it('the phone page says why it cannot work: no camera, pairing link no longer valid', async () => {
    // A browser without a (fake) camera.
    const cameraless = await (await researcherBrowser.newContext({ baseURL: server.baseUrl })).newPage();
    await cameraless.goto(`/capture/${await pairingTokenOf(sessionId)}`);
    await eventually(() => cameraless.getByTestId('phone-error').textContent()).toContain('This device has no camera the browser can use.');
    await cameraless.getByTestId('phone-connection').filter({ hasText: 'Not connected' }).waitFor();
    await screenshot(cameraless, 'capture-11-phone-no-camera');
    await cameraless.context().close();

    const stale = await openPhonePage(phoneBrowsers[0], `${server.baseUrl}/capture/no-such-pairing-token`);
    await eventually(() => stale.getByTestId('phone-error').textContent()).toContain(messages.pairingInvalid);
    await stale.context().close();
  });

  it('with more cameras connected than calibrated, Start recording waits 5 s, then cancels with the spec message', async () => {
    for (const camera of ['cam01', 'cam02']) {
      const phone = await launchPhone(join(workDir, `${camera}.y4m`));
      phoneBrowsers.push(phone);
      phones.push(await openPhonePage(phone, `${server.baseUrl}/capture/${await pairingTokenOf(sessionId)}`));
    }
    await eventually(() => phoneText(phones[0], 'phone-cameras').textContent()).toBe('Cameras connected: 3');
    const start = researcher.getByRole('button', { name: 'Start recording' });
    await researcher.getByRole('textbox', { name: 'Trial name' }).fill('walk_3');
    await start.click();
    await expectToast(researcher, messages.camerasConnectionTimeout);
    await start.waitFor();
    const session = await callApi<Session>(server.baseUrl, token, `/sessions/${sessionId}/`);
    // Stopped and cancelled: the trial went to the recycle bin.
    const walk = session.trials.find((trial) => trial.name === 'walk_3');
    expect([walk?.status, walk?.trashed]).toEqual(['stopped', true]);
  });
});
