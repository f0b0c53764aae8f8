import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { setTimeout } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages, type SessionRow } from '@kinetrace/contracts';
import { authRateRules } from '../src/services/auth-service.ts';
import { mailRateRules } from '../src/services/mail-throttle.ts';
import { accountClient } from './support/account-client.ts';
import { newSessionWithPhones, tusPatchHeaders } from './support/fake-phone.ts';
import {
  authHeader,
  newUserPayload,
  openTestApp,
  scratchDatabase,
  testBackends,
  verifiedUser,
  type TestApp,
} from './support/test-app.ts';

const onPostgres = (await testBackends()).includes('postgres');

/**
 * Issue 23, several servers on one PostgreSQL: what one server process counts, changes or writes, another
 * sees. Two apps run in this process on one database and one data folder (servers on PostgreSQL may share
 * a DATA_DIR, main.ts), as two servers behind a load balancer: the rate limits and mail throttles reached
 * through one hold on the other, a session change through one shows in the other's list, and a tus upload
 * written through one is not written through the other at the same time.
 */
describe.skipIf(!onPostgres)('two servers on one PostgreSQL database', () => {
  let a: TestApp;
  let b: TestApp;
  let dropDatabase: () => Promise<void>;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'kinetrace-shared-'));
    const scratch = await scratchDatabase('postgres', 'kinetrace_shared');
    dropDatabase = scratch.dropDatabase;
    const place = { dataDir, databaseUrl: scratch.databaseUrl };
    // One after the other: the first migrates the database.
    a = await openTestApp(place, { LOG_LEVEL: 'warn' }, { runJobs: false });
    b = await openTestApp(place, { LOG_LEVEL: 'warn' }, { runJobs: false });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await dropDatabase?.();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** Both servers' clocks moved on together (the rules run on the app's clock). */
  const moveClocks = (ms: number) => {
    a.clock.offsetMs += ms;
    b.clock.offsetMs += ms;
  };
  function expectRefusal(response: { statusCode: number; headers: Record<string, unknown>; json(): unknown }) {
    expect(response.statusCode).toBe(429);
    const waitS = Number(response.headers['retry-after']);
    expect(waitS).toBeGreaterThan(0);
    expect(response.json()).toEqual({ detail: messages.tooManyAttempts(waitS) });
    return waitS;
  }

  it('slows down wrong passwords counted through both servers, on both', async () => {
    const user = newUserPayload();
    expect((await accountClient(a).post('/api/register/', user)).statusCode).toBe(201);
    const wrongPassword = (server: TestApp) =>
      accountClient(server).post('/api/login/', { username: user.username, password: 'not it' }, {}, '10.60.0.1');
    const rule = authRateRules.loginFailuresPerAccountAndAddress;
    try {
      // The free failures, alternately through each server: neither has seen them all.
      for (let failure = 0; failure < rule.freeFailures; failure++)
        expect((await wrongPassword(failure % 2 ? b : a)).statusCode).toBe(400);
      // Each further failure, once its wait is over, doubles the next wait (1, 2, 4 s); either server refuses before.
      for (const [delayMs, server, other] of [
        [rule.firstDelayMs, a, b],
        [2 * rule.firstDelayMs, b, a],
        [4 * rule.firstDelayMs, a, b],
      ] as const) {
        expectRefusal(await wrongPassword(other));
        moveClocks(delayMs);
        expect((await wrongPassword(server)).statusCode).toBe(400);
      }
      const eightSeconds = (8 * rule.firstDelayMs) / 1000;
      expect(expectRefusal(await wrongPassword(b))).toBe(eightSeconds);
      expect(expectRefusal(await wrongPassword(a))).toBe(eightSeconds);
    } finally {
      moveClocks(-a.clock.offsetMs);
    }
  });

  it('mails one address at most the reset links its limit allows, whichever server is asked', async () => {
    const owner = await verifiedUser(a);
    const mailsTo = () => a.outbox().filter((mail) => mail.to.includes(owner.email)).length;
    const before = mailsTo();
    const ask = (server: TestApp, asker: number) =>
      accountClient(server).post('/api/reset-password/', { email: owner.email }, {}, `10.61.${asker}.1`);
    const { limit } = mailRateRules.reset.perRecipient;
    for (let asker = 0; asker < limit; asker++) expect((await ask(asker % 2 ? b : a, asker)).statusCode).toBe(200);
    expectRefusal(await ask(a, limit));
    expectRefusal(await ask(b, limit + 1));
    expect(mailsTo() - before).toBe(limit);
  });

  it("shows a session made, renamed and trashed through one server in the other's list", async () => {
    const owner = await verifiedUser(a);
    const list = async (server: TestApp) => {
      const response = await server.call({
        method: 'POST',
        url: '/api/sessions/valid/',
        payload: { quantity: -1, include_trashed: true },
        headers: authHeader(owner.token),
      });
      expect(response.statusCode).toBe(200);
      return (response.json() as { sessions: SessionRow[] }).sessions;
    };
    expect(await list(b)).toEqual([]);
    const created = await a.call({ method: 'GET', url: '/api/sessions/new/', headers: authHeader(owner.token) });
    const sessionId = (created.json() as [{ id: string }])[0].id;
    expect((await list(b)).map((row) => row.id)).toEqual([sessionId]);
    await a.call({
      method: 'POST',
      url: `/api/sessions/${sessionId}/rename/`,
      payload: { sessionNewName: 'knee_study' },
      headers: authHeader(owner.token),
    });
    expect(await list(b)).toMatchObject([{ id: sessionId, sessionName: 'knee_study' }]);
    await b.call({ method: 'POST', url: `/api/sessions/${sessionId}/trash/`, headers: authHeader(owner.token) });
    expect(await list(a)).toMatchObject([{ id: sessionId, trashed: true }]);
  });

  it("makes a phone's retry through the other server wait until the first server's request stops writing", async () => {
    const baseA = (await a.app.listen({ port: 0, host: '127.0.0.1' })).replace('[::1]', '127.0.0.1');
    const baseB = (await b.app.listen({ port: 0, host: '127.0.0.1' })).replace('[::1]', '127.0.0.1');
    const owner = await verifiedUser(a);
    const { session, phones, pairingToken } = await newSessionWithPhones(a, baseA, owner.token, 2);
    const record = await a.call({
      method: 'GET',
      url: `/api/sessions/${session.id}/record/?name=walk`,
      headers: authHeader(owner.token),
    });
    expect(record.statusCode, record.body).toBe(200);
    const trialId = (record.json() as { id: string }).id;
    const length = 1 << 20;
    const created = await phones[0].createUpload(trialId, length);
    expect(created.status).toBe(201);
    const uploadPath = new URL(created.location!).pathname;
    const stagedFile = join(dataDir, 'uploads', uploadPath.split('/').at(-1)!);
    const stagedBytes = () => (existsSync(stagedFile) ? statSync(stagedFile).size : 0);

    // Through A: a PATCH that sends its first 64 KiB and then hangs, as from a phone whose network dropped.
    const firstPart = Buffer.alloc(64 * 1024, 1);
    const body = new PassThrough();
    const firstEnded = new Promise<'ended'>((resolve) => {
      const request = httpRequest(`${baseA}${uploadPath}`, {
        method: 'PATCH',
        headers: tusPatchHeaders(pairingToken, 0),
      });
      const ended = () => resolve('ended');
      request.on('response', (response) => response.resume().on('end', ended).on('error', ended));
      request.on('error', ended);
      body.pipe(request);
    });
    body.write(firstPart);
    const deadline = Date.now() + 10_000;
    while (stagedBytes() < firstPart.length && Date.now() < deadline) await setTimeout(20);
    expect(stagedBytes()).toBe(firstPart.length);

    // The phone's retry reaches B, resuming where A's request had got to (the upload left unfinished: no video to probe).
    const rest = Buffer.alloc(length / 2, 2);
    try {
      const retry = await phones[0].send(`${baseB}${uploadPath}`, rest, firstPart.length);
      expect(retry.status).toBe(204);
      // B wrote once tus had asked A's request to let go of the upload and A's request had stopped: never both at once.
      expect(await Promise.race([firstEnded, setTimeout(5000, 'still writing')])).toBe('ended');
    } finally {
      body.destroy();
    }
    // A's bytes, then B's: compared whole (toEqual would compare them one by one).
    expect(readFileSync(stagedFile).equals(Buffer.concat([firstPart, rest]))).toBe(true);
    expect(await phones[0].offset(`${baseA}${uploadPath}`)).toBe(firstPart.length + rest.length);
  }, 30_000);
});
