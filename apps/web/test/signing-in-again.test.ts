import { messages } from '@kinetrace/contracts';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createAccount,
  editLocalStorage,
  expectPath,
  expectSessionListOrFirstSession,
  expectToast,
  launchBrowser,
  loginWithCode,
  makeUser,
  newContext,
  screenshot,
  signIn,
  startServer,
  submitLogin,
  textbox,
  type RunningServer,
} from './browser-harness.ts';

let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer(), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe('a remembered device skips the e-mailed code', () => {
  let page: Page;
  const user = makeUser('remembered');

  beforeAll(async () => {
    await createAccount(server.baseUrl, user);
    page = await (await newContext(browser, server.baseUrl)).newPage();
  });

  it('asks to remember the device at login, then logs in again without a code', async () => {
    await signIn(page, server, user, { rememberDevice: true });
    await page.getByRole('button', { name: 'Profile menu' }).click();
    await page.getByRole('menuitem', { name: 'Logout' }).click();
    await expectPath(page, '/login');

    // The checkbox is hidden while the device is remembered.
    await expect.poll(() => page.getByLabel('Remember this device for 90 days').count()).toBe(0);
    await server.mailbox.skipAll();
    await submitLogin(page, user);
    await expectSessionListOrFirstSession(page);
    expect(await server.mailbox.unreadCount(user.email)).toBe(0);
  });

  it('forgets the device after 90 days: the checkbox is back and the code is needed', async () => {
    await page.getByRole('button', { name: 'Profile menu' }).click();
    await page.getByRole('menuitem', { name: 'Logout' }).click();
    await expectPath(page, '/login');
    const ninetyOneDaysMs = 91 * 24 * 3_600_000;
    await editLocalStorage(
      page,
      (ageMs) => {
        const stamp = Number(localStorage.getItem('remember_device_timestamp'));
        localStorage.setItem('remember_device_timestamp', String(stamp - ageMs));
      },
      ninetyOneDaysMs,
    );
    await page.goto('/login');
    await page.getByLabel('Remember this device for 90 days').waitFor();
    await loginWithCode(page, server, user);
    await expectSessionListOrFirstSession(page);
  });

  it('forgets the device when the password is reset: the code is asked and the checkbox is back', async () => {
    await page.getByRole('button', { name: 'Profile menu' }).click();
    await page.getByRole('menuitem', { name: 'Logout' }).click();
    await expectPath(page, '/login');
    await loginWithCode(page, server, user, { rememberDevice: true });
    await page.getByRole('button', { name: 'Profile menu' }).click();
    await page.getByRole('menuitem', { name: 'Logout' }).click();
    await expectPath(page, '/login');
    await expect.poll(() => page.getByLabel('Remember this device for 90 days').count()).toBe(0);

    const api = (path: string, body: unknown) =>
      fetch(`${server.baseUrl}/api${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await api('/reset-password/', { email: user.email })).status).toBe(200);
    const token = (await server.mailbox.nextLink(user.email)).split('/').at(-1);
    expect((await api('/new-password/', { token, password: user.password })).status).toBe(200);

    await loginWithCode(page, server, user);
    await page.getByRole('button', { name: 'Profile menu' }).click();
    await page.getByRole('menuitem', { name: 'Logout' }).click();
    await page.getByLabel('Remember this device for 90 days').waitFor();
  });

  it('another browser, which is not remembered, still needs the code', async () => {
    const otherPage = await (await newContext(browser, server.baseUrl)).newPage();
    await otherPage.goto('/login');
    await otherPage.getByLabel('Remember this device for 90 days').waitFor();
    await loginWithCode(otherPage, server, user);
    await expectPath(otherPage, '/sessions');
    await otherPage.context().close();
  });
});

describe('a user who forgot their password chooses a new one from the e-mailed link', () => {
  let page: Page;
  const user = makeUser('forgetful');
  const newPassword = 'a brand new and even longer passphrase';

  beforeAll(async () => {
    await createAccount(server.baseUrl, user);
    page = await (await newContext(browser, server.baseUrl)).newPage();
  });

  it('asks for the reset e-mail from the login page', async () => {
    await page.goto('/login');
    await page.getByRole('link', { name: 'Forgot password?' }).click();
    await expectPath(page, '/reset-password');
    await textbox(page, 'E-mail').fill('not an e-mail');
    await page.getByRole('button', { name: 'Send recovery e-mail' }).click();
    await page.getByText(messages.invalidEmail).waitFor();
    await screenshot(page, 'reset-password');
    await textbox(page, 'E-mail').fill(user.email);
    await page.getByRole('button', { name: 'Send recovery e-mail' }).click();
    await expectToast(page, messages.passwordRecoveryEmailSent);
    await expectPath(page, '/login');
  });

  it('opens the link, must confirm the new password, and can log in with it', async () => {
    const link = await server.mailbox.nextLink(user.email);
    expect(link.startsWith(`${server.baseUrl}/new-password/`)).toBe(true);
    await page.goto(link);
    await expectPath(page, /^\/new-password\/[^/]+$/);
    await textbox(page, 'New password').fill('short');
    await textbox(page, 'Confirm new password').fill('short');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText(messages.passwordTooShort(20)).waitFor();
    await textbox(page, 'New password').fill(newPassword);
    await textbox(page, 'Confirm new password').fill(`${newPassword}!`);
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText(messages.passwordsDoNotMatch).waitFor();
    await screenshot(page, 'new-password');
    await textbox(page, 'Confirm new password').fill(newPassword);
    await page.getByRole('button', { name: 'Change password' }).click();
    await expectToast(page, messages.passwordChanged);
    await expectPath(page, '/login');

    await submitLogin(page, user);
    await expectToast(page, messages.invalidCredentials);
    await signIn(page, server, { ...user, password: newPassword });
  });

  it('cannot use the same link twice', async () => {
    await page.goto('/login');
    const context = await newContext(browser, server.baseUrl);
    const otherPage = await context.newPage();
    await otherPage.goto('/reset-password');
    await textbox(otherPage, 'E-mail').fill(user.email);
    await otherPage.getByRole('button', { name: 'Send recovery e-mail' }).click();
    await expectToast(otherPage, messages.passwordRecoveryEmailSent);
    const link = await server.mailbox.nextLink(user.email);
    for (const attempt of [1, 2]) {
      await otherPage.goto(link);
      await textbox(otherPage, 'New password').fill(`${newPassword} ${attempt}`);
      await textbox(otherPage, 'Confirm new password').fill(`${newPassword} ${attempt}`);
      await otherPage.getByRole('button', { name: 'Change password' }).click();
      await expectToast(otherPage, attempt === 1 ? messages.passwordChanged : messages.invalidResetLink);
    }
    await context.close();
  });
});

describe('an owner whose logins are held back after wrong passwords gets in with an e-mailed unlock link', () => {
  let page: Page;
  const user = makeUser('unlocked');

  beforeAll(async () => {
    await createAccount(server.baseUrl, user);
    page = await (await newContext(browser, server.baseUrl)).newPage();
  });

  it('is offered the link once logins are held back; the browser that opens it logs in without a code', async () => {
    await page.goto('/login');
    await textbox(page, 'Username').fill(user.username);
    await textbox(page, 'Password').fill('not the password, but long enough');
    // Wrong passwords until the server holds this account's logins from here back (it delays after five).
    let status = 0;
    for (let attempt = 0; attempt < 15 && status !== 429; attempt++) {
      const answer = page.waitForResponse((response) => response.url().endsWith('/api/login/'));
      await page.getByRole('button', { name: 'Login' }).click();
      status = (await answer).status();
    }
    expect(status).toBe(429);
    await page.getByText(messages.loginHeldBack).waitFor();
    await screenshot(page, 'login-held-back');

    await server.mailbox.skipAll();
    await page.getByRole('button', { name: 'E-mail me an unlock link' }).click();
    await expectToast(page, messages.unlockLinkSent);
    const link = await server.mailbox.nextLink(user.email);
    expect(link.startsWith(`${server.baseUrl}/unlock-login/`)).toBe(true);
    await page.goto(link);
    await page.getByText(messages.browserUnlocked(user.username)).waitFor();
    await screenshot(page, 'login-unlocked');

    // The link works once: opened again elsewhere, it says so and leads back to Login.
    const elsewhere = await (await newContext(browser, server.baseUrl)).newPage();
    await elsewhere.goto(link);
    await elsewhere.getByText(messages.invalidUnlockLink).waitFor();
    await elsewhere.getByRole('link', { name: 'Back to login' }).waitFor();
    await elsewhere.context().close();

    await page.getByRole('link', { name: 'Log in' }).click();
    await expectPath(page, '/login');
    await expect(textbox(page, 'Username').inputValue()).resolves.toBe(user.username);
    await textbox(page, 'Password').fill(user.password);
    await page.getByRole('button', { name: 'Login' }).click();
    await expectPath(page, /^\/(license|sessions|connect-devices)$/);
    expect(await server.mailbox.unreadCount(user.email)).toBe(0);
  });
});
