import { messages, type Session } from '@kinetrace/contracts';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  callApi,
  eventually,
  expectPath,
  launchBrowser,
  makeUser,
  newContext,
  screenshot,
  signUpAndSignIn,
  startServer,
  tokenOf,
  type RunningServer,
} from './browser-harness.ts';

const sessionRows = (page: Page) => page.getByRole('table', { name: 'Sessions' }).locator('tbody tr');
const rowOf = (page: Page, text: string) => sessionRows(page).filter({ hasText: text });
/** A session's open row menu (a menu closed just before may still be fading out). */
const menuOf = (page: Page, name: string) => page.getByRole('menu', { name: `Actions for session ${name}` });

describe('the session list: paging, rename, trash and restore, opening a session', () => {
  let server: RunningServer;
  let browser: Browser;
  let page: Page;
  const user = makeUser('lister');
  const sessions: Session[] = [];

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    page = await (await newContext(browser, server.baseUrl)).newPage();
    await signUpAndSignIn(page, server, user);
    const token = await tokenOf(page);
    // Signing in without sessions passed through the first wizard step, which made one: start from
    // none, away from the list (which would send an empty account back to that step).
    await page.goto('about:blank');
    const existing = await callApi<{ sessions: { id: string }[] }>(server.baseUrl, token, '/sessions/valid/', {
      quantity: -1,
    });
    for (const { id } of existing.sessions)
      await callApi(server.baseUrl, token, `/sessions/${id}/permanent_remove/`, {});
    // 45 sessions, named in creation order so that the newest (listed first) is session_45.
    for (let index = 1; index <= 45; index += 1) {
      const [session] = await callApi<Session[]>(server.baseUrl, token, '/sessions/new/');
      await callApi(server.baseUrl, token, `/sessions/${session.id}/rename/`, {
        sessionNewName: `session_${String(index).padStart(2, '0')}`,
      });
      sessions.push(session);
    }
    await page.goto('/sessions');
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('shows 40 sessions a page, newest first, and the last 5 on page 2', async () => {
    await eventually(() => sessionRows(page).count()).toBe(40);
    await expect(sessionRows(page).first().innerText()).resolves.toContain('session_45');
    await expect(sessionRows(page).first().innerText()).resolves.toMatch(
      /[A-Z][a-z]{2}\. \d{2}, \d{4}, \d{1,2}:\d{2} (am|pm)/,
    );
    await screenshot(page, 'session-list');
    await page.getByRole('button', { name: '2', exact: true }).click();
    await eventually(() => sessionRows(page).count()).toBe(5);
    const pageTwo = await sessionRows(page).allInnerTexts();
    expect(pageTwo.map((row) => /session_\d+/.exec(row)?.[0])).toEqual([
      'session_05',
      'session_04',
      'session_03',
      'session_02',
      'session_01',
    ]);
  });

  it('sorts by a column: session name ascending puts session_01 first', async () => {
    await page.getByRole('button', { name: 'Session name' }).click();
    await eventually(() => sessionRows(page).first().innerText()).toContain('session_01');
    await page.getByRole('button', { name: /Session name/ }).click();
    await eventually(() => sessionRows(page).first().innerText()).toContain('session_45');
  });

  it('finds sessions by name with the search field', async () => {
    await page.getByRole('textbox', { name: 'Search sessions' }).fill('session_1');
    await eventually(() => sessionRows(page).count()).toBe(10);
    // No match says so, and what can be searched.
    await page.getByRole('textbox', { name: 'Search sessions' }).fill('no_such_session');
    await page
      .getByTestId('empty-table')
      .getByText('No session matches “no_such_session”: try a session name, a subject or an id.')
      .waitFor();
    await page.getByRole('textbox', { name: 'Search sessions' }).fill('');
    await eventually(() => sessionRows(page).count()).toBe(40);
  });

  it('renames a session only to letters, digits, hyphens and underscores, with the hint shown', async () => {
    await page.reload(); // back to the first page, newest first
    await page.getByRole('button', { name: 'Actions for session session_44' }).click();
    await menuOf(page, 'session_44').getByRole('menuitem', { name: 'Rename' }).click();
    const dialog = page.getByRole('dialog', { name: 'Rename session' });
    await dialog.getByText(messages.sessionRenameHint).waitFor();
    const field = dialog.getByRole('textbox', { name: 'Session name' });
    await field.fill('gait day 1');
    await dialog.getByText(messages.noSpaces).waitFor();
    await field.fill('gait/day1');
    await dialog.getByText(messages.alphaDashCustom).waitFor();
    await expect(dialog.getByRole('button', { name: 'Rename' }).isDisabled()).resolves.toBe(true);
    await field.fill('');
    await dialog.getByText(messages.required).waitFor();
    await screenshot(page, 'session-rename-invalid');
    await field.fill('gait_day-1');
    await dialog.getByRole('button', { name: 'Rename' }).click();
    await dialog.waitFor({ state: 'detached' });
    await rowOf(page, 'gait_day-1').waitFor();
    await eventually(() => rowOf(page, 'session_44').count()).toBe(0);
  });

  it('trashes a session from its menu after asking, shows it as trashed, and restores it after asking', async () => {
    await page.getByRole('button', { name: 'Actions for session session_43' }).click();
    await menuOf(page, 'session_43').getByRole('menuitem', { name: 'Trash' }).click();
    const question = page.getByRole('dialog', { name: 'Trash session' });
    await question
      .getByText(
        'Do you want to trash session session_43? You will be able to restore it for 30 days. After that, this session will be permanently removed.',
        { exact: true },
      )
      .waitFor();
    await screenshot(page, 'session-trash-question');
    await question.getByRole('button', { name: 'No' }).click();
    await question.waitFor({ state: 'detached' });
    await expect(rowOf(page, 'session_43').getAttribute('data-trashed')).resolves.toBe(null);
    await page.getByRole('button', { name: 'Actions for session session_43' }).click();
    await menuOf(page, 'session_43').getByRole('menuitem', { name: 'Trash' }).click();
    await question.getByRole('button', { name: 'Yes' }).click();
    await eventually(() => rowOf(page, 'session_43').getAttribute('data-trashed')).toBe('true');
    await expect(rowOf(page, 'session_43').locator('td').nth(5).innerText()).resolves.toBe('Yes');
    await page.getByRole('button', { name: 'Actions for session session_43' }).click();
    await menuOf(page, 'session_43').getByRole('menuitem', { name: 'Restore' }).waitFor();
    await expect(menuOf(page, 'session_43').getByRole('menuitem', { name: 'Trash' }).count()).resolves.toBe(0);
    await menuOf(page, 'session_43').getByRole('menuitem', { name: 'Restore' }).click();
    const restore = page.getByRole('dialog', { name: 'Restore session' });
    await restore.getByText('Do you want to restore session session_43?', { exact: true }).waitFor();
    await restore.getByRole('button', { name: 'Yes' }).click();
    await eventually(() => rowOf(page, 'session_43').getAttribute('data-trashed')).toBe(null);
  });

  it('opens a session with two clicks within 300 ms, but not with two slow clicks', async () => {
    const row = rowOf(page, 'session_42');
    await row.locator('td').nth(1).click();
    await page.waitForTimeout(400);
    await row.locator('td').nth(1).click();
    await page.waitForTimeout(400);
    expect(new URL(page.url()).pathname).toBe('/sessions');
    await row.locator('td').nth(1).dblclick();
    await expectPath(page, `/session/${sessions[41].id}`);
    await page.getByRole('heading', { name: 'session_42' }).waitFor();
    await screenshot(page, 'session-screen');
  });

  it("opens a session's kinematics dashboard from its menu", async () => {
    await page.goto('/sessions');
    await page.getByRole('button', { name: 'Actions for session session_41' }).click();
    await menuOf(page, 'session_41').getByRole('menuitem', { name: 'Dashboard kinematics' }).click();
    await expectPath(page, `/dashboard/${sessions[40].id}`);
  });

  it('New session creates a session and goes to connecting devices for it', async () => {
    await page.goto('/sessions');
    await page.getByRole('button', { name: 'New session' }).click();
    await expectPath(page, /^\/[0-9a-f-]{36}\/connect-devices$/);
  });

  it('goes to connecting devices when the session list cannot be loaded (§4.1)', async () => {
    await page.route('**/api/sessions/valid/', (route) =>
      route.fulfill({ status: 503, contentType: 'application/json', body: '{"detail":"Service unavailable"}' }),
    );
    await page.goto('/sessions');
    await expectPath(page, /connect-devices$/);
    await page.unroute('**/api/sessions/valid/');
  });
});
