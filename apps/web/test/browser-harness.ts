import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { buildApp } from '../../server/src/app.ts';
import { openBackends, type Backends } from '../../server/src/backends.ts';
import { loadConfig } from '../../server/src/config.ts';
import { ensureBuilt, freePort, spawnServer } from '../../server/test/support/npm-start.ts';
import { seedTrial } from '../../server/test/support/seed.ts';
import { seedEmbeddedDatabase } from '../../server/test/support/pglite-template.ts';
import type { TestApp } from '../../server/test/support/test-app.ts';

/**
 * The shared harness of the browser tests: builds the web app when needed, starts the real server the way a
 * user does (on a free port, with a fresh data folder), drives Debian's chromium, and reads the e-mails the
 * server writes to its outbox folder.
 */

export const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
/** Screenshots for a person to look at; `.tmp/` is ignored by git. */
export const screenshotDir = join(repoRoot, '.tmp/web-screenshots');

export interface RunningServer {
  baseUrl: string;
  dataDir: string;
  mailbox: Mailbox;
  stop(): Promise<void>;
}

export async function startServer(): Promise<RunningServer> {
  ensureBuilt();
  const dataDir = await mkdtemp(join(tmpdir(), 'kinetrace-web-test-'));
  await seedEmbeddedDatabase(dataDir);
  const server = spawnServer({ dataDir, port: await freePort() });
  await server.ready();
  return {
    baseUrl: server.baseUrl,
    dataDir,
    mailbox: new Mailbox(join(dataDir, 'outbox')),
    async stop() {
      await server.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** A trial row with its videos and result files, as recording and processing leave it. */
export type TrialSeed = Parameters<typeof seedTrial>[2];

export interface SeedableServer extends RunningServer {
  /** A trial as recording and processing leave it: a name (and status) only, or with its videos and results. */
  seedTrial(sessionId: string, trial: string | TrialSeed, status?: string): Promise<string>;
  /** The server's own backends, for a test that reads or writes rows no call exposes (a pairing token, a trial's progress). */
  backends: Backends;
}

/**
 * The real server started inside the test process, for tests that need rows no API creates yet: PGlite
 * admits one process, so the rows are written through the server's own backends (the lead's seed helper).
 */
export async function startServerInProcess(): Promise<SeedableServer> {
  ensureBuilt();
  const port = await freePort();
  const dataDir = await mkdtemp(join(tmpdir(), 'kinetrace-web-test-'));
  await seedEmbeddedDatabase(dataDir);
  const baseUrl = `http://127.0.0.1:${port}`;
  const config = loadConfig({
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    PUBLIC_URL: baseUrl,
    LOG_LEVEL: 'warn',
  });
  const backends = await openBackends(config, () => undefined);
  const app = await buildApp(config, backends);
  await app.listen({ port, host: '127.0.0.1' });
  // seedTrial reads only the backends of the test app it is given.
  const seedTarget = { backends } as TestApp;
  return {
    baseUrl,
    dataDir,
    mailbox: new Mailbox(join(dataDir, 'outbox')),
    seedTrial: (sessionId, trial, status) =>
      seedTrial(seedTarget, sessionId, typeof trial === 'string' ? { name: trial, status } : trial),
    backends,
    async stop() {
      await app.close();
      await backends.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Decodes a quoted-printable or base64 body of a plain-text .eml file. */
function decodeBody(eml: string): { headers: Record<string, string>; text: string } {
  const [head, ...bodyParts] = eml.split(/\r?\n\r?\n/);
  const body = bodyParts.join('\n\n');
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  const encoding = (headers['content-transfer-encoding'] ?? '7bit').toLowerCase();
  if (encoding === 'base64') return { headers, text: Buffer.from(body, 'base64').toString('utf8') };
  if (encoding !== 'quoted-printable') return { headers, text: body };
  const bytes = Buffer.from(
    body
      .replace(/=\r?\n/g, '')
      .replace(/=([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
    'latin1',
  );
  return { headers, text: bytes.toString('utf8') };
}

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

/** The server's outbox: each call to `next` waits for a message not seen before, sent to `to`. */
export class Mailbox {
  private readonly seen = new Set<string>();
  constructor(private readonly dir: string) {}

  private async files(): Promise<string[]> {
    await mkdir(this.dir, { recursive: true });
    return (await readdir(this.dir)).filter((name) => name.endsWith('.eml')).sort();
  }

  /** Marks every message so far as read, so `next` only returns later ones. */
  async skipAll(): Promise<void> {
    for (const name of await this.files()) this.seen.add(name);
  }

  /** How many messages sent to `to` have not been read yet. */
  async unreadCount(to: string): Promise<number> {
    let count = 0;
    for (const name of await this.files()) {
      if (this.seen.has(name)) continue;
      if (decodeBody(await readFile(join(this.dir, name), 'utf8')).headers.to?.includes(to)) count += 1;
    }
    return count;
  }

  async next(to: string, timeoutMs = 20_000): Promise<Mail> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      for (const name of await this.files()) {
        if (this.seen.has(name)) continue;
        const { headers, text } = decodeBody(await readFile(join(this.dir, name), 'utf8'));
        if (!headers.to?.includes(to)) continue;
        this.seen.add(name);
        return { to: headers.to, subject: headers.subject ?? '', text };
      }
      if (Date.now() > deadline) throw new Error(`No e-mail to ${to} arrived within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  async nextCode(to: string): Promise<string> {
    const mail = await this.next(to);
    const code = /\b(\d{6})\b/.exec(mail.text)?.[1];
    if (!code) throw new Error(`No 6-digit code in the e-mail:\n${mail.text}`);
    return code;
  }

  async nextLink(to: string): Promise<string> {
    const mail = await this.next(to);
    const link = /https?:\/\/\S+/.exec(mail.text)?.[0];
    if (!link) throw new Error(`No link in the e-mail:\n${mail.text}`);
    return link;
  }
}

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** WebGL in headless chromium through ANGLE's software renderer (the 3D viewer's tests). */
export const WEBGL_ARGS = ['--use-gl=angle', '--use-angle=swiftshader', '--enable-unsafe-swiftshader'];

/** Debian's chromium, headless; `webgl` for the pages that draw the 3D viewer. */
export function launchBrowser(options: { webgl?: boolean } = {}): Promise<Browser> {
  const args = options.webgl ? [...CHROMIUM_ARGS, ...WEBGL_ARGS] : CHROMIUM_ARGS;
  return chromium.launch({ executablePath: '/usr/bin/chromium', args, headless: true });
}

/** A fresh browser profile (empty local storage) that may use the clipboard. */
export async function newContext(browser: Browser, baseUrl: string): Promise<BrowserContext> {
  const context = await browser.newContext({ baseURL: baseUrl, viewport: { width: 1200, height: 900 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseUrl });
  context.setDefaultTimeout(15_000);
  return context;
}

/** A text field by its visible label (required fields add an asterisk to the label, not to the name). */
export const textbox = (page: Page, name: string) => page.getByRole('textbox', { name, exact: true });

/** The body rows of the table labelled `table` (Sessions, Trials, Subjects …). */
export const tableRows = (page: Page, table: string) => page.getByRole('table', { name: table }).locator('tbody tr');

/** The row of the table labelled `table` that has a cell reading exactly `cell`. */
export const tableRow = (page: Page, table: string, cell: string) =>
  tableRows(page, table).filter({ has: page.getByRole('cell', { name: cell, exact: true }) });

/** The row of the session's trial table for the trial named `name`. */
export const trialRow = (page: Page, name: string) => tableRow(page, 'Trials', name);

/**
 * Picks `item` in a row's actions menu (`row` as its button names it: 'trial walk_1', 'subject P01'),
 * looked for in that menu alone: the previous menu may still be fading out.
 */
export async function chooseRowAction(page: Page, row: string, item: string): Promise<void> {
  await page.getByRole('button', { name: `Actions for ${row}` }).click();
  await page
    .getByRole('menu', { name: `Actions for ${row}` })
    .getByRole('menuitem', { name: item, exact: true })
    .click();
}

/** Picks options of a Mantine MultiSelect by their labels. */
export async function pickOptions(page: Page, field: string, options: string[]): Promise<void> {
  for (const option of options) {
    await page.getByRole('combobox', { name: field }).click();
    await page.getByRole('option', { name: option, exact: true }).click();
  }
  await page.keyboard.press('Escape');
}

export async function screenshot(page: Page, name: string): Promise<void> {
  await mkdir(screenshotDir, { recursive: true });
  await page.screenshot({ path: join(screenshotDir, `${name}.png`), fullPage: true });
}

/**
 * Runs `edit` on the origin's local storage from a blank page of that origin, so that no app code can write
 * to it meanwhile; the next navigation starts the app on the edited storage.
 */
export async function editLocalStorage(page: Page, edit: (value: number) => void, value: number): Promise<void> {
  const blankUrl = new URL('/__blank-for-storage-edits', page.url()).href;
  await page.route(blankUrl, (route) =>
    route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>blank</title>' }),
  );
  await page.goto(blankUrl);
  await page.evaluate(edit, value);
  await page.unroute(blankUrl);
}

/** The path part of the page's URL, once it has settled on `expected`. */
export async function expectPath(page: Page, expected: string | RegExp): Promise<void> {
  await page.waitForURL(
    (url) => (typeof expected === 'string' ? url.pathname === expected : expected.test(url.pathname)),
    {
      timeout: 15_000,
    },
  );
  expect(new URL(page.url()).pathname).toMatch(typeof expected === 'string' ? new RegExp(`^${expected}$`) : expected);
}

/**
 * `expect.poll` with the patience of the locators (15 s rather than vitest's 1 s): on a busy machine a
 * reload and its first queries can take longer than a second.
 */
export const eventually = <Value>(read: () => Value | Promise<Value>) => expect.poll(read, { timeout: 15_000 });

/** A toast's text, as the person sees it at the bottom of the page. */
export async function expectToast(page: Page, text: string): Promise<void> {
  try {
    await page.getByTestId('toast-message').filter({ hasText: text }).first().waitFor({ timeout: 15_000 });
  } catch (error) {
    // Which toasts the person saw instead says what went wrong; the timeout alone does not.
    const shown = await page.getByTestId('toast-message').allTextContents();
    throw new Error(`No toast "${text}" within 15 s; on screen: ${JSON.stringify(shown)}`, { cause: error });
  }
}

export interface TestUser {
  username: string;
  password: string;
  email: string;
  first_name: string;
  last_name: string;
  institution: string;
  profession: string;
  reason: string;
}

let userCounter = 0;
export function makeUser(prefix: string): TestUser {
  userCounter += 1;
  const username = `${prefix}_${userCounter}`;
  return {
    username,
    password: 'a long enough passphrase for tests',
    email: `${username}@example.org`,
    first_name: 'Ada',
    last_name: 'Lovelace',
    institution: 'Example University',
    profession: 'Researcher',
    reason: 'Gait analysis after knee surgery',
  };
}

/** Creates an account through the API (tests about other screens start from an existing account). */
export async function createAccount(baseUrl: string, user: TestUser): Promise<void> {
  const response = await fetch(`${baseUrl}/api/register/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(user),
  });
  if (!response.ok) throw new Error(`register failed: ${response.status} ${await response.text()}`);
}

/** Fills the login form and submits it. */
export async function submitLogin(
  page: Page,
  user: Pick<TestUser, 'username' | 'password'>,
  options: { rememberDevice?: boolean } = {},
): Promise<void> {
  await page.goto('/login');
  await textbox(page, 'Username').fill(user.username);
  await textbox(page, 'Password').fill(user.password);
  if (options.rememberDevice) await page.getByLabel('Remember this device for 90 days').check();
  await page.getByRole('button', { name: 'Login' }).click();
}

/** Logs in through the UI and enters the e-mailed code; the page is then on License or the session list. */
export async function loginWithCode(
  page: Page,
  server: RunningServer,
  user: TestUser,
  options: { rememberDevice?: boolean } = {},
): Promise<void> {
  await submitLogin(page, user, options);
  await expectPath(page, '/verify');
  const code = await server.mailbox.nextCode(user.email);
  await textbox(page, 'Verification code').fill(code);
  await page.getByRole('button', { name: 'Verify' }).click();
  await expectPath(page, /^\/(license|sessions|connect-devices)$/);
}

/**
 * Logs in, verifies and answers the licence questionnaire with a permitted use, and ends on the
 * session list (a user with none yet passes through the first wizard step, which makes one, §2.8).
 */
export async function signIn(
  page: Page,
  server: RunningServer,
  user: TestUser,
  options: { rememberDevice?: boolean } = {},
): Promise<void> {
  await loginWithCode(page, server, user, options);
  if (new URL(page.url()).pathname === '/license') {
    await page.getByLabel('Research at an academic or non-profit institution').check();
    await page.getByRole('button', { name: 'Submit' }).click();
  }
  await expectSessionListOrFirstSession(page);
  if (new URL(page.url()).pathname !== '/sessions') {
    await page.goto('/sessions');
    await tableRows(page, 'Sessions').first().waitFor();
  }
}

/** Creates the user's account, then signs in on `page` as `signIn` does. */
export async function signUpAndSignIn(page: Page, server: RunningServer, user: TestUser): Promise<void> {
  await createAccount(server.baseUrl, user);
  await signIn(page, server, user);
}

/** Settled on the session list showing a session, or on the first wizard step showing the session it made. */
export async function expectSessionListOrFirstSession(page: Page): Promise<void> {
  await tableRows(page, 'Sessions').or(page.getByTestId('session-qr')).first().waitFor();
  await expectPath(page, /^\/(sessions|([0-9a-f-]{36}\/)?connect-devices)$/);
}

/** The token the signed-in page holds, for the calls a test makes on the user's behalf. */
export const tokenOf = async (page: Page): Promise<string> => {
  const token = await page.evaluate(() => localStorage.getItem('auth_token'));
  if (!token) throw new Error('The page holds no auth token: sign in first');
  return token;
};

export interface SignedInBrowser {
  server: SeedableServer;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** The signed-in user's token, for the calls a test makes on their behalf. */
  token: string;
}

/**
 * The start of most screen tests: the server in this process and chromium, and `user`'s new account
 * signed in on a fresh page. Stop with `stopSignedIn`; on a failure here both are stopped already.
 */
export async function startSignedIn(user: TestUser, options: { webgl?: boolean } = {}): Promise<SignedInBrowser> {
  const [server, browser] = await Promise.all([startServerInProcess(), launchBrowser(options)]);
  try {
    const context = await newContext(browser, server.baseUrl);
    const page = await context.newPage();
    await signUpAndSignIn(page, server, user);
    return { server, browser, context, page, token: await tokenOf(page) };
  } catch (error) {
    await stopSignedIn({ server, browser });
    throw error;
  }
}

/** Closes the browser and stops the server of `startSignedIn` (either may be missing if it failed). */
export async function stopSignedIn(running: { server?: SeedableServer; browser?: Browser }): Promise<void> {
  await running.browser?.close();
  await running.server?.stop();
}

/** Calls the API as the user holding `token` and returns the parsed answer (null when empty). */
export async function callApi<Answer = unknown>(
  baseUrl: string,
  token: string,
  path: string,
  body?: unknown,
): Promise<Answer> {
  const response = await fetch(`${baseUrl}/api${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Token ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${path} answered ${response.status}: ${text}`);
  return (text ? JSON.parse(text) : null) as Answer;
}

/** A file for `postFiles`: its name (the server reads the type from it), content, and form field (default `file`). */
export interface UploadFile {
  name: string;
  content: string | Buffer<ArrayBuffer>;
  field?: string;
}

/** Posts text fields and files (multipart/form-data) as the user holding `token`; returns the parsed answer. */
export async function postFiles<Answer = unknown>(
  baseUrl: string,
  token: string,
  path: string,
  files: UploadFile[],
  fields: Record<string, string> = {},
): Promise<Answer> {
  const form = new FormData();
  // Fields first: the server reads the parts in order.
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  for (const file of files) form.append(file.field ?? 'file', new Blob([file.content]), file.name);
  const response = await fetch(`${baseUrl}/api${path}`, {
    method: 'POST',
    headers: { authorization: `Token ${token}` },
    body: form,
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${path} answered ${response.status}: ${text}`);
  return (text ? JSON.parse(text) : null) as Answer;
}
