import { messages } from '@kinetrace/contracts';
import { deflateSync } from 'node:zlib';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pngFile } from '../../server/test/support/png.ts';
import {
  createAccount,
  expectPath,
  expectToast,
  launchBrowser,
  makeUser,
  newContext,
  screenshot,
  signIn,
  startServer,
  submitLogin,
  textbox,
  type RunningServer,
} from './browser-harness.ts';

/** A real PNG file: a `size`×`size` square of one colour. */
function makePng(size: number, rgb: [number, number, number]): Buffer {
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array.from({ length: size }, () => rgb).flat())]);
  return pngFile(size, size, deflateSync(Buffer.concat(Array.from({ length: size }, () => row))));
}

describe('the profile page: view, edit, picture, settings and account deletion', () => {
  let server: RunningServer;
  let browser: Browser;
  let page: Page;
  const user = makeUser('profiled');
  const neighbour = makeUser('neighbour');
  let uploadedPicture: string | null = null;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    await Promise.all([createAccount(server.baseUrl, user), createAccount(server.baseUrl, neighbour)]);
    page = await (await newContext(browser, server.baseUrl)).newPage();
    await signIn(page, server, user);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('opens its own profile from the menu and sees only the facts that are present', async () => {
    await page.getByRole('button', { name: 'Profile menu' }).click();
    await page.getByRole('menuitem', { name: 'Your Profile' }).click();
    await expectPath(page, `/profile/${user.username}/`);
    await page.getByRole('heading', { name: user.username }).waitFor();
    for (const text of [user.institution, 'Ada Lovelace', user.profession, user.reason, 'United States']) {
      await expect(page.getByText(text, { exact: true }).isVisible(), text).resolves.toBe(true);
    }
    await expect(page.getByRole('link', { name: 'Contact' }).getAttribute('href')).resolves.toBe(
      `mailto:${user.email}`,
    );
    await expect.poll(() => page.getByText('Personal Website').count()).toBe(0);
    await expect(
      page.getByRole('img', { name: `Profile picture of ${user.username}` }).getAttribute('src'),
    ).resolves.toBe('/default-profile.svg');
    for (const button of ['Change image', 'Edit Profile', 'Settings']) {
      await expect(page.getByRole('button', { name: button }).isVisible(), button).resolves.toBe(true);
    }
    await screenshot(page, 'profile-view');
  });

  it('copies the profile URL by clicking the username', async () => {
    await page.getByRole('heading', { name: user.username }).click();
    await expectToast(page, messages.profileUrlCopied);
    await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toBe(
      `${server.baseUrl}/profile/${user.username}/`,
    );
  });

  it('edits the profile: required fields are checked, discarded edits leave it unchanged, saved ones show', async () => {
    await page.getByRole('button', { name: 'Edit Profile' }).click();
    await page.getByRole('heading', { name: 'Editing Profile' }).waitFor();
    await expect(textbox(page, 'Username').getAttribute('readonly')).resolves.not.toBeNull();
    await expect(page.getByText('Used for two-factor authentication').isVisible()).resolves.toBe(true);

    await textbox(page, 'First name').fill('Discarded');
    await page.getByRole('button', { name: 'Discard Changes' }).click();
    await page.getByText('Ada Lovelace', { exact: true }).waitFor();

    await page.getByRole('button', { name: 'Edit Profile' }).click();
    await textbox(page, 'Institution').fill('');
    await page.getByRole('button', { name: 'Save Changes' }).click();
    await page.getByText(messages.required).waitFor();
    await expect(page.getByRole('button', { name: 'Save Changes' }).isDisabled()).resolves.toBe(true);
    await screenshot(page, 'profile-edit');

    await textbox(page, 'Institution').fill('Institute of Movement');
    await textbox(page, 'Website').fill('example.org/lab');
    await page.getByRole('combobox', { name: 'Country' }).click();
    await page.getByRole('combobox', { name: 'Country' }).fill('Fran');
    await page.getByRole('option', { name: 'France' }).click();
    await page.getByRole('button', { name: 'Save Changes' }).click();
    await expectToast(page, messages.profileUpdated);
    await page.getByText('Institute of Movement', { exact: true }).waitFor();
    await expect(page.getByText('France', { exact: true }).isVisible()).resolves.toBe(true);
    await expect(page.getByRole('link', { name: 'example.org/lab' }).getAttribute('href')).resolves.toBe(
      'https://example.org/lab',
    );
  });

  it("is told on the e-mail field when the address is someone else's", async () => {
    await page.getByRole('button', { name: 'Edit Profile' }).click();
    await textbox(page, 'Email').fill(neighbour.email);
    await page.getByRole('button', { name: 'Save Changes' }).click();
    await page.getByText(messages.emailTaken).waitFor();
    await page.getByRole('button', { name: 'Discard Changes' }).click();
  });

  it('uploads a new picture after previewing it; the menu shows it too', async () => {
    await page.getByRole('button', { name: 'Change image' }).click();
    const dialog = page.getByRole('dialog', { name: 'Upload Image' });
    await dialog.waitFor();
    await expect(dialog.getByRole('button', { name: 'Save Image' }).isDisabled()).resolves.toBe(true);
    await dialog
      .locator('input[type=file]')
      .setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: makePng(64, [200, 40, 90]) });
    await dialog.getByRole('img', { name: 'Preview of the new profile picture' }).waitFor();
    await screenshot(page, 'profile-upload');
    await dialog.getByRole('button', { name: 'Save Image' }).click();
    await expectToast(page, messages.profilePictureUpdated);
    const picture = page.getByRole('img', { name: `Profile picture of ${user.username}` });
    await expect.poll(() => picture.getAttribute('src')).not.toBe('/default-profile.svg');
    const src = (await picture.getAttribute('src'))!;
    const served = await fetch(new URL(src, server.baseUrl));
    expect(served.ok).toBe(true);
    expect(served.headers.get('content-type')).toMatch(/^image\/png/);
    await expect(page.getByRole('button', { name: 'Profile menu' }).getByRole('img').getAttribute('src')).resolves.toBe(
      src,
    );
    uploadedPicture = src;
  });

  it('signing in on another browser shows the new picture in the menu', async () => {
    const otherPage = await (await newContext(browser, server.baseUrl)).newPage();
    await signIn(otherPage, server, user);
    const avatar = otherPage.getByRole('button', { name: 'Profile menu' }).getByRole('img');
    await expect.poll(() => avatar.getAttribute('src')).toBe(uploadedPicture);
    await otherPage.context().close();
  });

  it('sees the server refuse a file that is not an image', async () => {
    await page.getByRole('button', { name: 'Change image' }).click();
    const dialog = page.getByRole('dialog', { name: 'Upload Image' });
    await dialog
      .locator('input[type=file]')
      .setInputFiles({ name: 'notes.png', mimeType: 'image/png', buffer: Buffer.from('just some text') });
    await dialog.getByRole('button', { name: 'Save Image' }).click();
    await expectToast(page, messages.pictureNotImage);
    await dialog.getByRole('button', { name: 'Discard Changes' }).click();
    await dialog.waitFor({ state: 'hidden' });
  });

  it('anyone else sees a read-only profile with a Contact link', async () => {
    const visitor = await (await newContext(browser, server.baseUrl)).newPage();
    await visitor.goto(`/profile/${user.username}/`);
    await visitor.getByText('Institute of Movement', { exact: true }).waitFor();
    await expect(visitor.getByRole('link', { name: 'Contact' }).isVisible()).resolves.toBe(true);
    for (const button of ['Change image', 'Edit Profile', 'Settings']) {
      await expect(visitor.getByRole('button', { name: button }).count(), button).resolves.toBe(0);
    }
    await visitor.context().close();
  });

  it('turns voice feedback on in Settings and goes back', async () => {
    await page.getByRole('button', { name: 'Settings' }).click();
    await page.getByLabel('Enable Voice Auditory Feedback (audio updates for start and completion events)').check();
    await expect(page.evaluate(() => localStorage.getItem('auditory_feedback'))).resolves.toBe('true');
    await screenshot(page, 'profile-settings');
    await page.getByRole('button', { name: 'Go Back' }).click();
    await page.getByRole('button', { name: 'Edit Profile' }).waitFor();
  });

  it('creates a read-only API token shown once, which reads but cannot write, and revokes it', async () => {
    const api = (path: string, token: string) =>
      fetch(`${server.baseUrl}/api${path}`, { headers: { authorization: `Token ${token}` } });
    await page.goto(`/profile/${user.username}/`);
    await page.getByRole('button', { name: 'Settings' }).click();
    const table = page.getByRole('table', { name: 'Personal API tokens' });
    await table.getByText('No tokens.').waitFor();
    await page.getByRole('button', { name: 'Create token' }).click();
    await page.getByText(messages.required).waitFor();

    await textbox(page, 'Token name').fill('lab scripts');
    await expect(page.getByRole('radio', { name: 'Read-only' }).isChecked()).resolves.toBe(true);
    await page.getByRole('button', { name: 'Create token' }).click();
    const secret = page.getByLabel('New token', { exact: true });
    const token = (await secret.textContent())!;
    expect(token).toMatch(/^ktp_/);
    await page.getByText(messages.personalTokenCreated).waitFor();
    await page.getByRole('button', { name: 'Copy token' }).click();
    await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toBe(token);
    await table.getByRole('cell', { name: 'Read-only' }).waitFor();
    await screenshot(page, 'profile-api-tokens');

    expect((await api('/sessions/', token)).status).toBe(200);
    expect((await api('/sessions/new/', token)).status).toBe(403); // a GET that writes: refused to read-only

    await page.getByRole('button', { name: 'Done' }).click();
    await secret.waitFor({ state: 'detached' });
    await page.reload();
    await page.getByRole('button', { name: 'Settings' }).click();
    await table.getByRole('cell', { name: 'lab scripts' }).waitFor();
    expect(await page.content()).not.toContain(token);

    await table
      .getByRole('row', { name: /lab scripts/ })
      .getByRole('button', { name: 'Revoke' })
      .click();
    const dialog = page.getByRole('dialog', { name: 'Revoke token' });
    await dialog.getByText("Revoke the token 'lab scripts'?").waitFor();
    await dialog.getByRole('button', { name: 'Revoke' }).click();
    await expectToast(page, messages.personalTokenRevoked);
    await table.getByText('No tokens.').waitFor();
    await screenshot(page, 'profile-api-tokens-revoked');
    expect((await api('/sessions/', token)).status).toBe(401);
    await page.getByRole('button', { name: 'Go Back' }).click();
  });

  it('deletes the account after typing the username; it is logged out and cannot log in again', async () => {
    await page.getByRole('button', { name: 'Settings' }).click();
    await page.getByRole('button', { name: 'Delete Account' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete Account' });
    await dialog.getByText('permanent and irreversible').waitFor();
    await dialog.getByRole('button', { name: 'Do not remove my account' }).click();
    await dialog.waitFor({ state: 'hidden' });

    await page.getByRole('button', { name: 'Delete Account' }).click();
    await textbox(page, `Type your username (${user.username}) to confirm`).fill(`${user.username}x`);
    await dialog.getByRole('button', { name: 'Delete Account' }).click();
    await dialog.getByText(messages.deleteConfirmMismatch).waitFor();
    await screenshot(page, 'profile-delete');
    await textbox(page, `Type your username (${user.username}) to confirm`).fill(user.username);
    await dialog.getByRole('button', { name: 'Delete Account' }).click();
    await expectToast(page, messages.accountDeleted);
    await expectPath(page, '/login');

    await submitLogin(page, user);
    await expectToast(page, messages.invalidCredentials);
    await page.goto(`/profile/${user.username}/`);
    await page.getByText(messages.userDoesNotExist(user.username)).waitFor();
  });
});
