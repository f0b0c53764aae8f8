import { readFileSync } from 'node:fs';
import { RESULT_TAGS, type Session } from '@kinetrace/contracts';
import { schema } from '@kinetrace/db';
import { eq } from 'drizzle-orm';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import QRCode from 'qrcode';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithData, referencePath } from '../../../packages/mocap/test/reference-data.ts';
import {
  CHROMIUM_ARGS,
  eventually,
  launchBrowser,
  makeUser,
  newContext,
  pickOptions,
  startServerInProcess,
  signUpAndSignIn,
  tokenOf,
  callApi,
  type SeedableServer,
} from './browser-harness.ts';

/**
 * Issue 20, item 13: the server's content security policy runs only its own scripts, styles and media. The
 * app's screens, the 3D viewer, a phone's capture page and the API docs must work under it, with nothing
 * refused: a refusal is a feature broken in the field (a style not applied, a video not played).
 */

const fixture = {
  transforms: 'opencap_viewer_fixture/visualizerTransforms.json',
  video: 'pose2sim_demo/Pose2Sim/Demo_SinglePerson/videos/cam01.mp4',
};

interface Refusal {
  url: string;
  what: string;
}

/**
 * Collects what the policy refuses on every page of `context`: the `securitypolicyviolation` events of each
 * document (reported through a binding, which the policy cannot block) and chromium's console errors about it
 * (workers included).
 */
async function watchRefusals(context: BrowserContext): Promise<Refusal[]> {
  const refusals: Refusal[] = [];
  await context.exposeBinding('reportPolicyRefusal', ({ page }, what: string) => {
    refusals.push({ url: page.url(), what });
  });
  await context.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => {
      const report = (window as unknown as { reportPolicyRefusal(what: string): void }).reportPolicyRefusal;
      void report(
        `${event.effectiveDirective} refused ${event.blockedURI || 'inline'} at ${event.sourceFile}:${event.lineNumber} ${event.sample}`,
      );
    });
  });
  context.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy/i.test(message.text()))
      refusals.push({ url: message.page()?.url() ?? 'a worker', what: message.text() });
  });
  return refusals;
}

/** Expects no refusal so far, and forgets them (each test names its own). */
function expectNoRefusal(refusals: Refusal[]): void {
  expect(refusals.splice(0)).toEqual([]);
}

describeWithData('the app under its content security policy', Object.values(fixture), () => {
  let server: SeedableServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let refusals: Refusal[];
  let token: string;
  let session: Session;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServerInProcess(), launchBrowser({ webgl: true })]);
    context = await newContext(browser, server.baseUrl);
    refusals = await watchRefusals(context);
    page = await context.newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('serves the policy, and the app refuses nothing through login, the e-mailed code, the licence and the session list', async () => {
    const answer = await fetch(`${server.baseUrl}/login`);
    expect(answer.headers.get('content-security-policy')).toMatch(/script-src 'self';/);
    await signUpAndSignIn(page, server, makeUser('policy'));
    token = await tokenOf(page);
    expectNoRefusal(refusals);
  });

  it('the 3D viewer draws a trial and plays its video from the API, and the chart plots it', async () => {
    [session] = await callApi<Session[]>(server.baseUrl, token, '/sessions/new/');
    await server.seedTrial(session.id, {
      name: 'jump',
      results: [
        {
          tag: RESULT_TAGS.visualizerTransforms,
          fileName: 'jump.json',
          bytes: readFileSync(referencePath(fixture.transforms)),
        },
        { tag: RESULT_TAGS.videoSync, fileName: 'cam0.mp4', bytes: readFileSync(referencePath(fixture.video)) },
        // The chart reads a trial's angles from its IK-json (packages/mocap/src/session/ik-json.ts): three frames.
        {
          tag: RESULT_TAGS.ikJson,
          fileName: 'jump_ik.json',
          bytes: Buffer.from(
            JSON.stringify({
              format: 'kinetrace-ik',
              version: 1,
              units: 'degrees',
              translationUnits: 'm',
              time: [0, 0.01, 0.02],
              coordinates: { knee_angle_r: [5, 10, 15] },
              translationalCoordinates: [],
            }),
          ),
        },
      ],
    });
    await page.goto(`/session/${session.id}`);
    await page.getByRole('cell', { name: 'jump', exact: true }).click();
    const scene = page.getByTestId('viewer-scene');
    await scene.locator('canvas').waitFor();
    // The scene publishes the frame it drew: the viewer's script ran and drew with WebGL.
    await eventually(() => scene.getAttribute('data-frame')).not.toBeNull();
    // The synchronised video came from the API's media route and has a picture.
    await eventually(() =>
      page
        .locator('video')
        .first()
        .evaluate((video: HTMLVideoElement) => video.readyState),
    ).toBe(4);

    await page.goto(`/dashboard/${session.id}`);
    await pickOptions(page, 'Trials', ['jump']);
    await pickOptions(page, 'Y quantities', ['knee_angle_r']);
    await eventually(() => page.getByTestId('chart').getAttribute('aria-label')).toMatch(/knee_angle_r.*0\.01, 10/);
    expectNoRefusal(refusals);
  });

  it('the subjects, recycle bin and profile screens, with a new picture previewed', async () => {
    await page.goto('/subjects');
    await page.getByRole('table', { name: 'Subjects' }).waitFor();
    await page.goto('/recycle-bin');
    await page.getByRole('heading', { name: 'Recycle bin' }).waitFor();
    await page.goto('/sessions');
    await page.getByRole('button', { name: 'Profile menu' }).click();
    await page.getByRole('menuitem', { name: 'Your Profile' }).click();
    await page.getByRole('button', { name: 'Change image' }).click();
    const dialog = page.getByRole('dialog', { name: 'Upload Image' });
    await dialog
      .locator('input[type=file]')
      .setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: await QRCode.toBuffer('a picture') });
    // The preview is a blob: URL of the chosen file: it must load, not merely be in the page.
    const preview = dialog.getByRole('img', { name: 'Preview of the new profile picture' });
    await eventually(() =>
      preview.evaluate((image: HTMLImageElement) => image.complete && image.naturalWidth),
    ).not.toBe(0);
    await dialog.getByRole('button', { name: 'Discard Changes' }).click();
    expectNoRefusal(refusals);
  });

  it("Connect devices shows the QR code, and a phone's capture page opens its camera and pairs", async () => {
    await page.goto(`/${session.id}/connect-devices`);
    const qrImage = page.getByRole('img', { name: 'QR code to connect a phone' });
    await eventually(() =>
      qrImage.evaluate((image: HTMLImageElement) => image.complete && image.naturalWidth),
    ).not.toBe(0);
    const [row] = await server.backends.database.db
      .select({ pairingToken: schema.sessions.pairingToken })
      .from(schema.sessions)
      .where(eq(schema.sessions.id, session.id));
    // A phone: chromium's own test pattern as its camera.
    const phoneBrowser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      headless: true,
      args: [...CHROMIUM_ARGS, '--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream'],
    });
    try {
      const phoneContext = await phoneBrowser.newContext({ viewport: { width: 390, height: 844 } });
      phoneContext.setDefaultTimeout(20_000);
      const phoneRefusals = await watchRefusals(phoneContext);
      const phone = await phoneContext.newPage();
      await phone.goto(`${server.baseUrl}/capture/${row.pairingToken}`);
      await eventually(() => phone.getByTestId('phone-connection').textContent()).toBe('Connected');
      await eventually(() =>
        phone.getByLabel('Camera preview').evaluate((video: HTMLVideoElement) => video.videoWidth),
      ).toBeGreaterThan(0);
      await eventually(() => page.getByTestId('devices-connected').textContent()).toBe('1 device connected');
      expectNoRefusal(phoneRefusals);
    } finally {
      await phoneBrowser.close();
    }
    expectNoRefusal(refusals);
  });

  it('the API docs list the calls and open one', async () => {
    await page.goto('/api/docs/');
    await page.getByRole('heading', { name: /Kinetrace API/ }).waitFor();
    const operation = page.locator('.opblock-summary').first();
    await operation.click();
    await page.locator('.opblock-body').first().waitFor();
    expectNoRefusal(refusals);
  });
});
