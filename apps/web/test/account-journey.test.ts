import { messages } from '@kinetrace/contracts';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  expectPath,
  expectToast,
  launchBrowser,
  makeUser,
  newContext,
  screenshot,
  startServer,
  textbox,
  type RunningServer,
  type TestUser,
} from './browser-harness.ts';

/** Fills every field of the register form and ticks the three agreements. */
async function fillRegisterForm(page: Page, user: TestUser): Promise<void> {
  await textbox(page, 'Username').fill(user.username);
  await textbox(page, 'First name').fill(user.first_name);
  await textbox(page, 'Last name').fill(user.last_name);
  await textbox(page, 'E-mail').fill(user.email);
  await textbox(page, 'Institution').fill(user.institution);
  await textbox(page, 'Profession').fill(user.profession);
  await textbox(page, 'Reason for use').fill(user.reason);
  await textbox(page, 'Password').fill(user.password);
  await textbox(page, 'Confirm password').fill(user.password);
  await page.getByLabel('I agree to the terms of use').check();
  await page.getByLabel('I agree to the privacy policy').check();
  await page.getByLabel('I will use this software for non-profit, non-commercial purposes only').check();
}

describe('a new user signs up and reaches the session list', () => {
  let server: RunningServer;
  let browser: Browser;
  let page: Page;
  const user = makeUser('journey');

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    page = await (await newContext(browser, server.baseUrl)).newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('finds the sign-up page from Login and sees the register form with its defaults', async () => {
    await page.goto('/login');
    await page.getByRole('link', { name: 'Sign up' }).click();
    await expectPath(page, '/register-kinetrace');
    await expect(page.getByRole('combobox', { name: 'Country' }).inputValue()).resolves.toBe('United States');
    await expect(page.getByLabel('Sign up to receive our newsletter').isChecked()).resolves.toBe(true);
    await expect(page.getByText('Used for two-factor authentication').isVisible()).resolves.toBe(true);
    await screenshot(page, 'register');
  });

  it('is told what is wrong with an incomplete form, without calling the server', async () => {
    const registerCalls: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/api/register/')) registerCalls.push(request.url());
    });
    await textbox(page, 'Username').fill('has space');
    await textbox(page, 'Password').fill('too short');
    await textbox(page, 'Confirm password').fill('different');
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.getByText(messages.noSpaces).waitFor();
    await expect(page.getByText(messages.passwordTooShort(20)).isVisible()).resolves.toBe(true);
    await expect(page.getByText(messages.mustAgree).count()).resolves.toBe(3);
    await expect(page.getByText(messages.required).count()).resolves.toBe(6);
    expect(registerCalls).toEqual([]);
    await screenshot(page, 'register-errors');
  });

  it('must confirm the password, then creates the account and is sent to Login with a success toast', async () => {
    await fillRegisterForm(page, user);
    await textbox(page, 'Confirm password').fill(`${user.password} typo`);
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.getByText(messages.passwordsDoNotMatch).waitFor();
    await textbox(page, 'Confirm password').fill(user.password);
    await page.getByRole('button', { name: 'Sign up' }).click();
    await expectToast(page, messages.userCreated);
    await expectPath(page, '/login');
    // The login form keeps the username just signed up with.
    await expect(textbox(page, 'Username').inputValue()).resolves.toBe(user.username);
    // Success toasts sit at the bottom centre and have a Close action.
    const toast = page.getByRole('alert').filter({ hasText: messages.userCreated });
    const box = (await toast.boundingBox())!;
    const viewport = page.viewportSize()!;
    expect(Math.abs(box.x + box.width / 2 - viewport.width / 2)).toBeLessThan(20);
    expect(box.y + box.height).toBeGreaterThan(viewport.height - 100);
    await toast.getByRole('button', { name: 'Close' }).click();
    await toast.waitFor({ state: 'detached' });
  });

  it('is refused a second account with the same username, on the username field', async () => {
    await page.goto('/register-any-provider');
    await fillRegisterForm(page, { ...makeUser('other'), username: user.username });
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.getByText(messages.usernameTaken).waitFor();
    await expectPath(page, '/register-any-provider');
  });

  it('sees the server refuse a wrong password in the error toast', async () => {
    await page.goto('/login');
    await screenshot(page, 'login');
    await textbox(page, 'Username').fill(user.username);
    await textbox(page, 'Password').fill('not the right password at all');
    await page.getByRole('button', { name: 'Login' }).click();
    await expectToast(page, messages.invalidCredentials);
    // The same refusal again does not stack a second toast.
    const refused = page.waitForResponse(
      (response) => response.url().includes('/login') && response.request().method() === 'POST',
    );
    await page.getByRole('button', { name: 'Login' }).click();
    await refused;
    await expect(
      page.getByTestId('toast-message').filter({ hasText: messages.invalidCredentials }).count(),
    ).resolves.toBe(1);
    await expectPath(page, '/login');
  });

  it('logs in, is asked for the e-mailed code, and a wrong code is refused', async () => {
    await textbox(page, 'Password').fill(user.password);
    await page.getByRole('button', { name: 'Login' }).click();
    await expectPath(page, '/verify');
    // The login screen's error toast stays behind on its screen.
    await page
      .getByTestId('toast-message')
      .filter({ hasText: messages.invalidCredentials })
      .waitFor({ state: 'detached' });
    await screenshot(page, 'verify');
    const code = await server.mailbox.nextCode(user.email);
    const wrongCode = code === '000000' ? '111111' : '000000';
    await textbox(page, 'Verification code').fill(wrongCode);
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByText(messages.invalidCode).first().waitFor();
    await expectPath(page, '/verify');
    // The code read from the mail still works after one wrong try.
    await textbox(page, 'Verification code').fill(` ${code} `);
    await page.getByRole('button', { name: 'Verify' }).click();
    await expectPath(page, '/license');
  });

  it('answers the licence questionnaire: a not-permitted use cannot be submitted', async () => {
    const submit = page.getByRole('button', { name: 'Submit' });
    await expect(submit.isDisabled()).resolves.toBe(true);
    await page.getByLabel('Patient care (clinical use)').check();
    await page.getByText(messages.licenseNotPermitted).waitFor();
    await expect(submit.isDisabled()).resolves.toBe(true);
    await screenshot(page, 'license-not-permitted');
    await page.getByLabel('Teaching at an academic or non-profit institution').check();
    await expect.poll(() => page.getByText(messages.licenseNotPermitted).count()).toBe(0);
    await expect.poll(() => submit.isEnabled()).toBe(true); // once the choice is saved
    await submit.click();
    // The session list sends someone without any session to the first wizard step, which makes one (§2.8).
    await page.getByTestId('session-qr').waitFor();
    await expectPath(page, /^\/[0-9a-f-]{36}\/connect-devices$/);
    await page.getByRole('heading', { name: 'Connect devices' }).waitFor();
    await screenshot(page, 'connect-devices-first-session');
    await page.goto('/sessions');
    await expectPath(page, '/sessions');
    await page.getByRole('table', { name: 'Sessions' }).locator('tbody tr').first().waitFor(); // the session it made
    await page.getByRole('button', { name: 'New session' }).waitFor();
    await screenshot(page, 'sessions');
  });

  it('stays signed in after a reload (the stored token is checked at start-up) and sees the profile menu', async () => {
    await page.reload();
    await page.getByRole('button', { name: 'New session' }).waitFor();
    await page.getByRole('button', { name: 'Profile menu' }).click();
    await page.getByText('Signed in as').waitFor();
    for (const item of [
      'Your Profile',
      'Your Sessions',
      'Forum',
      'Source code',
      'Data-processing code',
      'Best practices',
      'FAQ',
      'Terms',
      'Data privacy',
      'Report a bug',
      'Logout',
    ]) {
      await expect(page.getByRole('menuitem', { name: item }).isVisible(), item).resolves.toBe(true);
    }
    await expect(page.getByRole('menuitem', { name: 'Forum' }).getAttribute('href')).resolves.toMatch(/^https:\/\//);
    await screenshot(page, 'profile-menu');
  });

  it('logs out from the menu and lands on Login; the session list is then out of reach', async () => {
    await page.getByRole('menuitem', { name: 'Logout' }).click();
    await expectPath(page, '/login');
    await page.goto('/sessions');
    await expectPath(page, '/login');
  });
});
