import { messages, type Session, type Subject } from '@kinetrace/contracts';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  callApi,
  chooseRowAction,
  eventually,
  expectPath,
  expectToast,
  launchBrowser,
  makeUser,
  newContext,
  screenshot,
  signUpAndSignIn,
  startServer,
  tableRow,
  tableRows,
  tokenOf,
  type RunningServer,
} from './browser-harness.ts';

const subjectRows = (page: Page) => tableRows(page, 'Subjects');
const subjectRow = (page: Page, name: string) => tableRow(page, 'Subjects', name);
const field = (dialog: Locator, name: string) => dialog.getByRole('textbox', { name, exact: true });

const openSubjectMenu = (page: Page, name: string, item: string) => chooseRowAction(page, `subject ${name}`, item);

describe('the Subjects screen and the subject dialog', () => {
  let server: RunningServer;
  let browser: Browser;
  let page: Page;
  const user = makeUser('subjects');
  const thisYear = new Date().getFullYear();

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    page = await (await newContext(browser, server.baseUrl)).newPage();
    await signUpAndSignIn(page, server, user);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('opens from the session list with its buttons and columns', async () => {
    await page.getByRole('link', { name: 'Subjects' }).click();
    await expectPath(page, '/subjects');
    for (const button of ['Go back to sessions list', 'New Subject'])
      await page
        .getByRole('button', { name: button })
        .or(page.getByRole('link', { name: button }))
        .waitFor();
    await page.getByRole('checkbox', { name: 'Show removed subjects' }).waitFor();
    const headers = await page.getByRole('table', { name: 'Subjects' }).locator('thead th').allInnerTexts();
    expect(headers.slice(0, 8).map((header) => header.replace(/[▲▼]/g, '').trim())).toEqual([
      'Name',
      'Weight',
      'Height',
      'Birth year',
      'Sex',
      'Gender',
      'Subject Tags',
      'Characteristics',
    ]);
    // Tags and characteristics are not sortable: their headers hold no button.
    await expect(page.getByRole('button', { name: 'Subject Tags' }).count()).resolves.toBe(0);
    await expect(page.getByRole('button', { name: 'Characteristics' }).count()).resolves.toBe(0);
    // A new user's empty table says what to do.
    await page.getByTestId('empty-table').getByText('No subjects yet: add one with New Subject.').waitFor();
  });

  it('creates a subject, telling each range, tag and consent rule with its message', async () => {
    await page.getByRole('button', { name: 'New Subject' }).click();
    const dialog = page.getByRole('dialog', { name: 'New subject' });
    await expect(field(dialog, 'Weight (kg)').inputValue()).resolves.toBe('70');
    await expect(field(dialog, 'Height (m)').inputValue()).resolves.toBe('1.8');

    await field(dialog, 'Name').fill('P01');
    const ranges: [string, string, string][] = [
      ['Weight (kg)', '250', messages.subjectWeightTooLarge],
      ['Weight (kg)', '0.5', messages.subjectWeightTooSmall],
      ['Height (m)', '3.5', messages.subjectHeightTooLarge],
      ['Height (m)', '0.05', messages.subjectHeightTooSmall],
      ['Birth year', '1899', messages.subjectBirthYearTooEarly],
      ['Birth year', String(thisYear + 1), messages.subjectBirthYearInFuture],
    ];
    for (const [label, value, message] of ranges) {
      await field(dialog, label).fill(value);
      await dialog.getByText(message, { exact: true }).waitFor();
    }
    await field(dialog, 'Weight (kg)').fill('72.5');
    await field(dialog, 'Height (m)').fill('1.74');
    await field(dialog, 'Birth year').fill('1990');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.getByText(messages.subjectTagsRequired, { exact: true }).waitFor();
    await dialog.getByText(messages.subjectConsentRequired, { exact: true }).waitFor();
    for (const [, , message] of ranges)
      await expect(dialog.getByText(message, { exact: true }).count()).resolves.toBe(0);
    await screenshot(page, 'subject-dialog-errors');

    await dialog.getByLabel('Sex at birth', { exact: true }).click();
    await page.getByRole('option', { name: 'Female', exact: true }).click();
    await dialog.getByLabel('Gender', { exact: true }).click();
    await page.getByRole('option', { name: 'Non-Binary/Non-Conforming', exact: true }).click();
    await dialog
      .getByRole('textbox', { name: /^Subject tags/ })
      .or(dialog.getByLabel(/^Subject tags/))
      .first()
      .click();
    await page.getByRole('option', { name: 'Unimpaired', exact: true }).click();
    await page.getByRole('option', { name: 'Knee osteoarthritis', exact: true }).click();
    await dialog.getByText(messages.subjectTagsRequired, { exact: true }).waitFor({ state: 'detached' });
    await dialog.getByRole('textbox', { name: 'Characteristics' }).fill('Left knee pain');
    await dialog.getByRole('checkbox').check();
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached' });

    await eventually(async () => (await subjectRow(page, 'P01').locator('td').allInnerTexts()).slice(0, 8)).toEqual([
      'P01',
      '72.5 kg',
      '1.74 m',
      '1990',
      'Female',
      'Non-Binary/Non-Conforming',
      'Unimpaired, Knee osteoarthritis',
      'Left knee pain',
    ]);
    await screenshot(page, 'subjects');
  });

  it('edits a subject, and keeps the dialog open with the server’s messages on the fields after a 400', async () => {
    await openSubjectMenu(page, 'P01', 'Edit');
    const dialog = page.getByRole('dialog', { name: 'Edit subject' });
    await expect(field(dialog, 'Weight (kg)').inputValue()).resolves.toBe('72.5');
    await field(dialog, 'Name').fill('P01-renamed');
    await page.route('**/api/subjects/*/', (route) =>
      route.request().method() === 'PUT'
        ? route.fulfill({
            status: 400,
            contentType: 'application/json',
            body: JSON.stringify({ name: ['A subject with this name already exists.'] }),
          })
        : route.fallback(),
    );
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.getByText('A subject with this name already exists.').waitFor();
    await page.unroute('**/api/subjects/*/');
    await field(dialog, 'Weight (kg)').fill('74');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached' });
    await expect(subjectRow(page, 'P01-renamed').locator('td').nth(1).innerText()).resolves.toBe('74 kg');
  });

  it("lists the selected subject's sessions on the right and opens one with a double click", async () => {
    const token = await tokenOf(page);
    const { subjects } = await callApi<{ subjects: Subject[] }>(server.baseUrl, token, '/subjects/?quantity=-1');
    const [session] = await callApi<Session[]>(server.baseUrl, token, '/sessions/new/');
    await callApi(server.baseUrl, token, `/sessions/${session.id}/set_subject/?subject_id=${subjects[0].id}`);
    await callApi(server.baseUrl, token, `/sessions/${session.id}/rename/`, { sessionNewName: 'knee_visit_1' });
    await page.reload();
    await subjectRow(page, 'P01-renamed').locator('td').first().click();
    await eventually(() => subjectRow(page, 'P01-renamed').getAttribute('aria-selected')).toBe('true');
    const sessionsTable = page.getByRole('table', { name: 'Sessions of the subject' });
    const row = sessionsTable.locator('tbody tr').filter({ hasText: 'knee_visit_1' });
    await row.waitFor();
    expect(await sessionsTable.locator('thead th').allInnerTexts()).toEqual([
      'Session ID',
      'Session Name',
      'Trials',
      'Date',
    ]);
    await screenshot(page, 'subjects-selected');
    await row.dblclick();
    await expectPath(page, `/session/${session.id}`);
    await page.getByText('Subject: P01-renamed').first().waitFor();
    await page.goBack();
    await expectPath(page, '/subjects');
  });

  it("replaces and revokes the subject's share link from its menu, and makes a new one", async () => {
    const token = await tokenOf(page);
    const { subjects } = await callApi<{ subjects: Subject[] }>(server.baseUrl, token, '/subjects/?quantity=-1');
    const { id, share_token: first } = subjects.find((subject) => subject.name === 'P01-renamed')!;
    const shareTokenNow = async () => (await callApi<Subject>(server.baseUrl, token, `/subjects/${id}/`)).share_token;
    const readsWith = async (shareToken: string) =>
      (await fetch(`${server.baseUrl}/api/subjects/${id}/?share_token=${encodeURIComponent(shareToken)}`)).status;
    expect(await readsWith(first!)).toBe(200);

    await openSubjectMenu(page, 'P01-renamed', 'Replace share link');
    const replace = page.getByRole('dialog', { name: 'Replace share link' });
    await replace.getByText(messages.shareLinkReplaceQuestion('P01-renamed'), { exact: true }).waitFor();
    await screenshot(page, 'subject-share-link-replace');
    await replace.getByRole('button', { name: 'Yes' }).click();
    await expectToast(page, messages.shareLinkReplaced);
    const second = await shareTokenNow();
    expect(second).not.toBe(first);
    expect(await readsWith(first!)).toBe(404);
    expect(await readsWith(second!)).toBe(200);

    await openSubjectMenu(page, 'P01-renamed', 'Revoke share link');
    const revoke = page.getByRole('dialog', { name: 'Revoke share link' });
    await revoke.getByText(messages.shareLinkRevokeQuestion('P01-renamed'), { exact: true }).waitFor();
    await revoke.getByRole('button', { name: 'Yes' }).click();
    await expectToast(page, messages.shareLinkRevoked);
    await eventually(shareTokenNow).toBeNull();
    expect(await readsWith(second!)).toBe(404);

    // With no link, the menu offers to make one and nothing to revoke.
    await page.getByRole('button', { name: 'Actions for subject P01-renamed' }).click();
    const menu = page.getByRole('menu', { name: 'Actions for subject P01-renamed' });
    await menu.getByRole('menuitem', { name: 'Create share link' }).waitFor();
    await expect(menu.getByRole('menuitem', { name: 'Revoke share link' }).count()).resolves.toBe(0);
    await screenshot(page, 'subject-share-link-menu-revoked');
    await menu.getByRole('menuitem', { name: 'Create share link' }).click();
    const create = page.getByRole('dialog', { name: 'Create share link' });
    await create.getByText(messages.shareLinkCreateQuestion('P01-renamed'), { exact: true }).waitFor();
    await create.getByRole('button', { name: 'Yes' }).click();
    await expectToast(page, messages.shareLinkCreated);
    const third = await shareTokenNow();
    expect(third).toEqual(expect.any(String));
    expect(await readsWith(third!)).toBe(200);
  });

  it('asks before downloading all data of a subject, then prepares the archive with its progress', async () => {
    await openSubjectMenu(page, 'P01-renamed', 'Download data');
    const dialog = page.getByRole('dialog', { name: 'Download data' });
    await dialog
      .getByText(
        'Do you want to download all data associated to the subject P01-renamed? (This includes every session and trial associated to it, and can take several minutes).',
        { exact: true },
      )
      .waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).waitFor();
    const download = page.waitForEvent('download');
    await dialog.getByRole('button', { name: 'Download' }).click();
    const link = dialog.getByRole('link', { name: /^subject_results_\d+\.zip$/ });
    await link.waitFor();
    const archive = await fetch(new URL((await link.getAttribute('href'))!, server.baseUrl));
    expect(archive.status).toBe(200);
    expect(
      Buffer.from(await archive.arrayBuffer())
        .subarray(0, 2)
        .toString('latin1'),
    ).toBe('PK');
    await download;
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
  });

  it("offers 'Download data (old)' only when synchronous downloads are allowed, and saves subject_results_{id}.zip", async () => {
    await page.getByRole('button', { name: 'Actions for subject P01-renamed' }).click();
    const menu = page.getByRole('menu', { name: 'Actions for subject P01-renamed' });
    await menu.getByRole('menuitem', { name: 'Edit' }).waitFor();
    await expect(menu.getByRole('menuitem', { name: 'Download data (old)' }).count()).resolves.toBe(0);
    await page.keyboard.press('Escape');
    await page.evaluate(() => localStorage.setItem('isSyncDownloadAllowed', 'true'));
    await page.reload();
    const download = page.waitForEvent('download');
    await openSubjectMenu(page, 'P01-renamed', 'Download data (old)');
    expect((await download).suggestedFilename()).toMatch(/^subject_results_\d+\.zip$/);
    await page.evaluate(() => localStorage.removeItem('isSyncDownloadAllowed'));
  });

  it('trashes a subject after the 30-day question, shows it among removed subjects, restores it and deletes it permanently', async () => {
    await openSubjectMenu(page, 'P01-renamed', 'Trash');
    const trashDialog = page.getByRole('dialog', { name: 'Trash subject' });
    await trashDialog
      .getByText(
        'Do you want to trash subject P01-renamed? You will be able to restore it for 30 days. After that, this subject will be permanently removed.',
        { exact: true },
      )
      .waitFor();
    await trashDialog.getByRole('button', { name: 'Yes' }).click();
    await eventually(() => subjectRow(page, 'P01-renamed').count()).toBe(0);

    await page.getByRole('checkbox', { name: 'Show removed subjects' }).check();
    await eventually(() => subjectRow(page, 'P01-renamed').getAttribute('data-trashed')).toBe('true');
    await page.getByRole('button', { name: 'Actions for subject P01-renamed' }).click();
    const trashedMenu = page.getByRole('menu', { name: 'Actions for subject P01-renamed' });
    await trashedMenu.getByRole('menuitem', { name: 'Restore' }).waitFor();
    await expect(trashedMenu.getByRole('menuitem', { name: 'Edit' }).count()).resolves.toBe(0);
    await trashedMenu.getByRole('menuitem', { name: 'Restore' }).click();
    const restoreDialog = page.getByRole('dialog', { name: 'Restore subject' });
    await restoreDialog.getByText('Do you want to restore subject P01-renamed?', { exact: true }).waitFor();
    await restoreDialog.getByRole('button', { name: 'Yes' }).click();
    await eventually(() => subjectRow(page, 'P01-renamed').getAttribute('data-trashed')).toBe(null);

    await openSubjectMenu(page, 'P01-renamed', 'Trash');
    await page.getByRole('dialog', { name: 'Trash subject' }).getByRole('button', { name: 'Yes' }).click();
    await eventually(() => subjectRow(page, 'P01-renamed').getAttribute('data-trashed')).toBe('true');
    await openSubjectMenu(page, 'P01-renamed', 'Delete permanently');
    const deleteDialog = page.getByRole('dialog', { name: 'Delete subject permanently' });
    await deleteDialog.getByText('Do you want to permanently remove subject P01-renamed?', { exact: true }).waitFor();
    await deleteDialog.getByRole('button', { name: 'No' }).click();
    await deleteDialog.waitFor({ state: 'detached' });
    await expect(subjectRow(page, 'P01-renamed').count()).resolves.toBe(1);
    await openSubjectMenu(page, 'P01-renamed', 'Delete permanently');
    await page.getByRole('dialog', { name: 'Delete subject permanently' }).getByRole('button', { name: 'Yes' }).click();
    await eventually(() => subjectRow(page, 'P01-renamed').count()).toBe(0);
  });

  it('pages the subjects by 40', async () => {
    const token = await tokenOf(page);
    for (let index = 1; index <= 41; index += 1) {
      const response = await fetch(`${server.baseUrl}/api/subjects/`, {
        method: 'POST',
        headers: { authorization: `Token ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          name: `S${String(index).padStart(2, '0')}`,
          weight: 60,
          height: 1.7,
          birth_year: 1980,
          subject_tags: ['unimpaired'],
          terms: true,
        }),
      });
      expect(response.status).toBe(201);
    }
    await page.reload();
    await eventually(() => subjectRows(page).count()).toBe(40);
    await page.getByRole('button', { name: '2', exact: true }).click();
    await eventually(() => subjectRows(page).allInnerTexts()).toEqual([expect.stringContaining('S41')]);
  });
});
