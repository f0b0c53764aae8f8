import { messages, type Session } from '@kinetrace/contracts';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  callApi,
  chooseRowAction,
  eventually,
  expectPath,
  expectToast,
  makeUser,
  newContext,
  screenshot,
  startSignedIn,
  stopSignedIn,
  trialRow,
  tableRows,
  type SeedableServer,
} from './browser-harness.ts';

const trialRows = (page: Page) => tableRows(page, 'Trials');
const binSessions = (page: Page) => tableRows(page, 'Sessions in the bin');
const binTrials = (page: Page) => tableRows(page, 'Trashed trials');
const openTrialMenu = (page: Page, trial: string, item: string) => chooseRowAction(page, `trial ${trial}`, item);

describe('trial dialogs on the session screen, and the recycle bin', () => {
  let server: SeedableServer;
  let browser: Browser;
  let page: Page;
  let token: string;
  const user = makeUser('binner');
  let visit: Session;
  let spare: Session;

  const newSession = async (name: string) => {
    const [session] = await callApi<Session[]>(server.baseUrl, token, '/sessions/new/');
    await callApi(server.baseUrl, token, `/sessions/${session.id}/rename/`, { sessionNewName: name });
    return session;
  };

  beforeAll(async () => {
    ({ server, browser, page, token } = await startSignedIn(user));
    visit = await newSession('visit_a');
    spare = await newSession('visit_b');
    await server.seedTrial(visit.id, 'calibration');
    await server.seedTrial(visit.id, 'neutral');
    await server.seedTrial(visit.id, 'walk_1');
    await server.seedTrial(visit.id, 'walk_2');
    await server.seedTrial(visit.id, 'squat_1', 'processing');
  });
  afterAll(() => stopSignedIn({ server, browser }));

  it('names a new session by when it was made, and says how to add its first trial', async () => {
    const [fresh] = await callApi<Session[]>(server.baseUrl, token, '/sessions/new/');
    await page.goto(`/session/${fresh.id}`);
    await page.getByRole('heading', { name: /^Session \d{4}-\d{2}-\d{2} \d{2}:\d{2}$/ }).waitFor();
    await expect(page.getByRole('heading', { name: fresh.id }).count()).resolves.toBe(0);
    await page
      .getByTestId('empty-table')
      .getByText('No trials yet: name one above and press Start recording, or import videos from the session menu.')
      .waitFor();
  });

  it('lists the trials of a session without the calibration trial', async () => {
    await page.goto(`/session/${visit.id}`);
    await page.getByRole('heading', { name: 'visit_a' }).waitFor();
    await eventually(async () => (await trialRows(page).allInnerTexts()).map((row) => row.split('\t')[0])).toEqual([
      'neutral',
      'walk_1',
      'walk_2',
      'squat_1',
    ]);
    await screenshot(page, 'session-trials');
  });

  it('renames a trial only to a free, unreserved name made of allowed characters', async () => {
    await openTrialMenu(page, 'walk_2', 'Rename');
    const dialog = page.getByRole('dialog', { name: 'Rename trial' });
    const field = dialog.getByRole('textbox', { name: 'Trial name' });
    const rename = dialog.getByRole('button', { name: 'Rename' });
    await field.fill('walk_1');
    await dialog.getByText(messages.uniqueTrialName, { exact: true }).waitFor();
    await expect(rename.isDisabled()).resolves.toBe(true);
    await field.fill('calibration');
    await dialog.getByText(messages.trialNameReserved, { exact: true }).waitFor();
    await field.fill('walk 2');
    await dialog.getByText(messages.noSpaces, { exact: true }).waitFor();
    await screenshot(page, 'trial-rename-invalid');
    await field.fill('walk_2'); // its own name is allowed
    await eventually(() => rename.isDisabled()).toBe(false);
    await field.fill('walk_fast');
    await rename.click();
    await dialog.waitFor({ state: 'detached' });
    await trialRow(page, 'walk_fast').waitFor();
  });

  it('offers no rename for the neutral trial and refuses to rename a trial being processed', async () => {
    await page.getByRole('button', { name: 'Actions for trial neutral' }).click();
    const neutralMenu = page.getByRole('menu', { name: 'Actions for trial neutral' });
    await neutralMenu.getByRole('menuitem', { name: 'Tags' }).waitFor();
    await expect(neutralMenu.getByRole('menuitem', { name: 'Rename' }).count()).resolves.toBe(0);
    await page.keyboard.press('Escape');
    await openTrialMenu(page, 'squat_1', 'Rename');
    await expectToast(page, messages.trialBusy);
    // Warnings sit top right, below the header: its controls stay uncovered.
    const warningBox = (await page.getByRole('alert').filter({ hasText: messages.trialBusy }).boundingBox())!;
    const headerBox = (await page.locator('header').first().boundingBox())!;
    expect(warningBox.y).toBeGreaterThanOrEqual(headerBox.y + headerBox.height);
    expect(warningBox.x + warningBox.width).toBeGreaterThan(page.viewportSize()!.width - 100);
    // Nor does it cover the session's controls (the session menu among them) while it stays.
    const controlsBox = (await page.getByTestId('session-controls').boundingBox())!;
    const overlaps =
      warningBox.x < controlsBox.x + controlsBox.width &&
      controlsBox.x < warningBox.x + warningBox.width &&
      warningBox.y < controlsBox.y + controlsBox.height &&
      controlsBox.y < warningBox.y + warningBox.height;
    expect(overlaps).toBe(false);
    await screenshot(page, 'session-warning');
    // A warning stays until closed.
    await page
      .getByRole('alert')
      .filter({ hasText: messages.trialBusy })
      .getByRole('button', { name: 'Close' })
      .click();
    await expect(page.getByRole('dialog', { name: 'Rename trial' }).count()).resolves.toBe(0);
  });

  it('tags a trial from the trial tag list; Apply Tags waits for a tag', async () => {
    await openTrialMenu(page, 'walk_1', 'Tags');
    const dialog = page.getByRole('dialog', { name: 'Tags of trial walk_1' });
    const apply = dialog.getByRole('button', { name: 'Apply Tags' });
    await expect(apply.isDisabled()).resolves.toBe(true);
    await dialog
      .getByRole('textbox', { name: /^Trial tags/ })
      .or(dialog.getByLabel(/^Trial tags/))
      .first()
      .click();
    await page.getByRole('option', { name: 'Walking (fast)', exact: true }).click();
    await eventually(() => apply.isDisabled()).toBe(false);
    await dialog.getByRole('heading', { name: 'Tags of trial walk_1' }).click(); // closes the tag list
    await apply.click();
    await dialog.waitFor({ state: 'detached' });
    await eventually(() => trialRow(page, 'walk_1').locator('td').nth(2).innerText()).toBe('Walking (fast)');
  });

  it('trashes a trial after asking, hides it, and shows it again with the trashed ones', async () => {
    await openTrialMenu(page, 'walk_1', 'Trash');
    const dialog = page.getByRole('dialog', { name: 'Trash trial' });
    await dialog
      .getByText(/^Do you want to trash trial walk_1\? You will be able to restore it for 30 days\./)
      .waitFor();
    await dialog.getByRole('button', { name: 'Yes' }).click();
    await eventually(() => trialRow(page, 'walk_1').count()).toBe(0);
    await page.getByRole('checkbox', { name: 'Show trashed trials' }).check();
    await eventually(() => trialRow(page, 'walk_1').getAttribute('data-trashed')).toBe('true');
  });

  it('prepares the session archive on request and offers it as data.zip', async () => {
    await page.getByRole('button', { name: 'Download data' }).click();
    const dialog = page.getByRole('dialog', { name: 'Download data' });
    const download = page.waitForEvent('download');
    await dialog.getByRole('button', { name: 'Download' }).click();
    const link = dialog.getByRole('link', { name: 'data.zip' });
    await link.waitFor();
    const archive = await fetch(new URL((await link.getAttribute('href'))!, server.baseUrl));
    expect(
      Buffer.from(await archive.arrayBuffer())
        .subarray(0, 2)
        .toString('latin1'),
    ).toBe('PK');
    await download;
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
  });

  it('shows a public session read-only to a visitor who is not signed in', async () => {
    const shared = await fetch(`${server.baseUrl}/api/sessions/${visit.id}/`, {
      method: 'PATCH',
      headers: { authorization: `Token ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ public: true }),
    });
    expect(shared.status).toBe(200);
    const visitor = await (await newContext(browser, server.baseUrl)).newPage();
    await visitor.goto(`/session/${visit.id}`);
    await visitor.getByRole('heading', { name: 'visit_a' }).waitFor();
    await trialRow(visitor, 'walk_fast').waitFor();
    // Pairing phones is the owner's: the visitor gets no QR code to pair with.
    await expect(page.getByRole('button', { name: 'Reconnect phone' }).count()).resolves.toBe(1);
    await expect(visitor.getByRole('button', { name: 'Reconnect phone' }).count()).resolves.toBe(0);
    await expect(visitor.getByRole('button', { name: /^Actions for trial/ }).count()).resolves.toBe(0);
    await expect(visitor.getByRole('button', { name: 'Download data' }).count()).resolves.toBe(0);
    await visitor.context().close();
  });

  it("lists trashed sessions in the recycle bin with the selected session's trashed trials, and restores a trial", async () => {
    for (const session of [visit, spare]) await callApi(server.baseUrl, token, `/sessions/${session.id}/trash/`, {});
    await page.goto('/sessions');
    await page.getByRole('link', { name: 'Recycle Bin' }).click();
    await expectPath(page, '/recycle-bin');
    await eventually(() => binSessions(page).count()).toBe(2);
    await binSessions(page).filter({ hasText: 'visit_a' }).locator('td').first().click();
    await eventually(() => binTrials(page).allInnerTexts()).toEqual([expect.stringContaining('walk_1')]);
    await screenshot(page, 'recycle-bin');
    await binTrials(page).getByRole('button', { name: 'Restore' }).click();
    const dialog = page.getByRole('dialog', { name: 'Restore trial' });
    await dialog.getByText('Do you want to restore trial walk_1?', { exact: true }).waitFor();
    await dialog.getByRole('button', { name: 'Yes' }).click();
    await page.getByText('This session has no trashed trials.').waitFor();
    const restored = await callApi<Session>(server.baseUrl, token, `/sessions/${visit.id}/`);
    expect(restored.trials.find((trial) => trial.name === 'walk_1')?.trashed).toBe(false);
  });

  it('restores a session from the bin and removes one permanently after asking', async () => {
    await binSessions(page).filter({ hasText: 'visit_b' }).getByRole('button', { name: 'Restore' }).click();
    await page.getByRole('dialog', { name: 'Restore session' }).getByRole('button', { name: 'Yes' }).click();
    await eventually(() => binSessions(page).count()).toBe(1);
    expect((await callApi<Session>(server.baseUrl, token, `/sessions/${spare.id}/`)).trashed).toBe(false);

    const doomed = await newSession('visit_c');
    await callApi(server.baseUrl, token, `/sessions/${doomed.id}/trash/`, {});
    await page.reload();
    await eventually(() => binSessions(page).count()).toBe(2);
    await binSessions(page).filter({ hasText: 'visit_c' }).getByRole('button', { name: 'Delete permanently' }).click();
    const dialog = page.getByRole('dialog', { name: 'Remove session permanently' });
    await dialog.getByText('Do you want to permanently remove session visit_c?', { exact: true }).waitFor();
    await dialog.getByRole('button', { name: 'Yes' }).click();
    await eventually(() => binSessions(page).count()).toBe(1);
    await expect(callApi(server.baseUrl, token, `/sessions/${doomed.id}/`)).rejects.toThrow(/404/);
  });

  it('lists a trashed trial of an active session, and empty bin removes exactly what it listed', async () => {
    const jump = await server.seedTrial(spare.id, 'jump_1');
    await callApi(server.baseUrl, token, `/trials/${jump}/trash/`, {});
    await page.reload();
    // visit_b is not trashed: it is in the bin for its trashed trial, which only the trial's own actions restore.
    const activeRow = binSessions(page).filter({ hasText: 'visit_b' });
    await activeRow.getByText('Not trashed', { exact: true }).waitFor();
    await expect(activeRow.getByRole('button', { name: 'Restore' }).count()).resolves.toBe(0);
    await activeRow.locator('td').first().click();
    await eventually(() => binTrials(page).allInnerTexts()).toEqual([expect.stringContaining('jump_1')]);
    await screenshot(page, 'recycle-bin-active-session');

    await page.getByRole('button', { name: 'Empty bin' }).click();
    const dialog = page.getByRole('dialog', { name: 'Empty bin' });
    await dialog.getByRole('button', { name: 'No' }).click();
    await dialog.waitFor({ state: 'detached' });
    await expect(binSessions(page).count()).resolves.toBe(2);
    await page.getByRole('button', { name: 'Empty bin' }).click();
    await dialog
      .getByText(
        'Do you want to permanently remove the 1 trashed trial and then the 1 trashed session listed here? This cannot be undone.',
        { exact: true },
      )
      .waitFor();
    // Trashed while the question is open: the bin never showed it, so emptying the bin keeps it.
    const unseen = await server.seedTrial(spare.id, 'jump_2');
    await callApi(server.baseUrl, token, `/trials/${unseen}/trash/`, {});
    await dialog.getByRole('button', { name: 'Yes' }).click();
    await dialog.waitFor({ state: 'detached' });
    await expect(callApi(server.baseUrl, token, `/sessions/${visit.id}/`)).rejects.toThrow(/404/);
    const afterEmpty = await callApi<Session>(server.baseUrl, token, `/sessions/${spare.id}/`);
    expect(afterEmpty.trials.map((trial) => [trial.name, trial.trashed])).toEqual([['jump_2', true]]);
    // The bin now shows what is left in it.
    await eventually(() => binSessions(page).allInnerTexts()).toEqual([expect.stringContaining('visit_b')]);
    await binSessions(page).locator('td').first().click();
    await eventually(() => binTrials(page).allInnerTexts()).toEqual([expect.stringContaining('jump_2')]);
  });
});
