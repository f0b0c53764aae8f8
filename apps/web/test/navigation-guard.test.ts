import { messages } from '@kinetrace/contracts';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createAccount,
  editLocalStorage,
  expectPath,
  expectSessionListOrFirstSession,
  launchBrowser,
  loginWithCode,
  makeUser,
  newContext,
  screenshot,
  signUpAndSignIn,
  startServer,
  submitLogin,
  type RunningServer,
} from './browser-harness.ts';

describe('the navigation guard sends each kind of visitor where they may be', () => {
  let server: RunningServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });
  beforeEach(async () => {
    context = await newContext(browser, server.baseUrl);
    page = await context.newPage();
  });
  afterEach(async () => {
    await context.close();
  });

  it('not logged in: private pages and unknown paths go to Login, public pages open', async () => {
    for (const path of [
      '/',
      '/sessions',
      '/verify',
      '/license',
      '/subjects',
      '/recycle-bin',
      '/connect-devices',
      '/no/such/page',
    ]) {
      await page.goto(path);
      await expectPath(page, '/login');
    }
    for (const path of [
      '/reset-password',
      '/new-password/some-token',
      '/register-kinetrace',
      '/session/1',
      '/dashboard/',
      '/profile/nobody/',
    ]) {
      await page.goto(path);
      await expectPath(page, path);
    }
    await page.getByText(messages.userDoesNotExist('nobody')).waitFor();
    await expect.poll(() => page.getByRole('button', { name: 'Reconnect phone' }).count()).toBe(0);
    // The QR button to re-pair a phone is the owner's, on the recording screens only (session-processing
    // checks the owner gets it): a signed-out visitor of a session page is not offered its pairing code.
    await page.goto('/session/1');
    await expectPath(page, '/session/1');
    await page.waitForLoadState('networkidle');
    await expect.poll(() => page.getByRole('button', { name: 'Reconnect phone' }).count()).toBe(0);
    // Signed-out visitors get no profile menu.
    await expect.poll(() => page.getByRole('button', { name: 'Profile menu' }).count()).toBe(0);
  });

  it('logged in but not verified: only Verify stays open, everything else goes to Login', async () => {
    const user = makeUser('unverified');
    await createAccount(server.baseUrl, user);
    await submitLogin(page, user);
    await expectPath(page, '/verify');
    for (const path of ['/sessions', '/license', '/profile/someone/', '/no/such/page']) {
      await page.goto(path);
      await expectPath(page, '/login');
    }
    await page.goto('/verify');
    await expectPath(page, '/verify');
    // Back to Login logs out: Verify is then out of reach as well.
    await page.getByRole('button', { name: 'Back to Login' }).click();
    await expectPath(page, '/login');
    await page.goto('/verify');
    await expectPath(page, '/login');
  });

  it('verified with no declared use: every page goes to License', async () => {
    const user = makeUser('nouse');
    await createAccount(server.baseUrl, user);
    await loginWithCode(page, server, user);
    await expectPath(page, '/license');
    for (const path of ['/sessions', `/profile/${user.username}/`, '/subjects']) {
      await page.goto(path);
      await expectPath(page, '/license');
    }
    await expect.poll(() => page.getByText(messages.licensePreviousNotPermitted).count()).toBe(0);
  });

  it('verified with a not-permitted use: sent back to License with the reminder, even after a reload', async () => {
    const user = makeUser('clinic');
    await createAccount(server.baseUrl, user);
    await loginWithCode(page, server, user);
    await expectPath(page, '/license');
    // Choosing saves the answer at once, without Submit.
    const saved = page.waitForResponse(
      (response) => response.url().endsWith('/api/set-institutional-use/') && response.ok(),
    );
    await page.getByLabel('Use in a company').check();
    await saved;
    await page.goto('/sessions');
    await expectPath(page, '/license');
    await page.getByText(messages.licensePreviousNotPermitted).waitFor();
    await screenshot(page, 'license-previous-not-permitted');
    await page.getByLabel('Other non-commercial use').check();
    await page.getByRole('button', { name: 'Submit' }).click();
    await expectSessionListOrFirstSession(page);
  });

  it('verified with a permitted use: unknown paths go to the session list, setup steps need a session', async () => {
    const user = makeUser('researcher');
    await signUpAndSignIn(page, server, user);
    await page.goto('/no/such/page');
    await expectPath(page, '/sessions');
    for (const path of ['/12/calibration', '/12/neutral', '/12/connect-devices']) {
      await page.goto(path);
      await expectPath(page, '/connect-devices');
    }
    await page.getByRole('heading', { name: 'Connect devices' }).waitFor();
    // The logo leads back to the session list except on the list itself.
    await page.getByRole('link', { name: 'Kinetrace: your sessions' }).click();
    await expectPath(page, '/sessions');
    await expect.poll(() => page.getByRole('link', { name: 'Kinetrace: your sessions' }).count()).toBe(0);
  });

  it('a login older than 12 hours is over at start-up', async () => {
    const user = makeUser('expired');
    await signUpAndSignIn(page, server, user);
    await editLocalStorage(page, (validTill) => localStorage.setItem('valid_till', String(validTill)), Date.now() - 1);
    await page.goto('/sessions');
    await expectPath(page, '/login');
    await expect(page.evaluate(() => localStorage.getItem('auth_token'))).resolves.toBeNull();
  });

  it('the login ends 12 hours after the last route change, while the app stays open', async () => {
    await page.clock.install();
    const user = makeUser('sleepy');
    await signUpAndSignIn(page, server, user);
    await page.clock.fastForward('11:00:00');
    await page.getByRole('button', { name: 'Profile menu' }).click();
    await page.getByRole('menuitem', { name: 'Your Profile' }).click();
    await expectPath(page, `/profile/${user.username}/`);
    // The route change restarted the 12 hours (the app does it just after rendering the new route).
    const hoursLeft = () => page.evaluate(() => (Number(localStorage.getItem('valid_till')) - Date.now()) / 3_600_000);
    await expect.poll(hoursLeft).toBeGreaterThan(11.9);
    // 22 hours after login, but only 11 after the last route change: still signed in.
    await page.clock.fastForward('11:00:00');
    await page.getByRole('button', { name: 'Edit Profile' }).waitFor();
    await page.clock.fastForward('01:00:01');
    await expectPath(page, '/login');
    await expect(page.evaluate(() => localStorage.getItem('auth_token'))).resolves.toBeNull();
  });

  it('a token revoked on the server is dropped at start-up', async () => {
    const user = makeUser('revoked');
    await signUpAndSignIn(page, server, user);
    const token = await page.evaluate(() => localStorage.getItem('auth_token'));
    const revoked = await fetch(`${server.baseUrl}/api/logout/`, {
      method: 'POST',
      headers: { Authorization: `Token ${token}` },
    });
    expect(revoked.ok).toBe(true);
    await page.goto('/sessions');
    await expectPath(page, '/login');
    await expect(page.evaluate(() => localStorage.getItem('auth_token'))).resolves.toBeNull();
  });
});
