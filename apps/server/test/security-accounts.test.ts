import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages, PASSWORD_MIN_LENGTH, REMEMBERED_DEVICE_HEADER, UNLOCK_LINK_TTL_MS } from '@kinetrace/contracts';
import { accountClient, userOnRememberedDevice } from './support/account-client.ts';
import { resetLinkIn } from './support/outbox.ts';
import {
  authHeader,
  newUserPayload,
  PASSWORD,
  startTestApp,
  testBackends,
  verifiedUser,
  type TestApp,
} from './support/test-app.ts';

/**
 * What an outside probe of the account API found (issue 13): reset links pointed at the caller's host,
 * remembered devices outlived a new password, a stranger could lock an account's owner out, and a
 * password of spaces was accepted.
 */
const backends = await testBackends();

describe.each(backends)('password reset and remembered devices on %s', (backend) => {
  let test: TestApp;
  beforeAll(async () => {
    test = await startTestApp(backend); // PUBLIC_URL=http://kinetrace.test
  });
  afterAll(async () => {
    await test?.close();
  });

  it('mails a reset link on the configured public URL, whatever host the request names', async () => {
    const { post, lastMailTo } = accountClient(test);
    const user = await verifiedUser(test);
    const poisoned = await post(
      '/api/reset-password/',
      { email: user.email, host: 'https://evil.example' },
      { host: 'evil.example' },
    );
    expect(poisoned.statusCode).toBe(200);
    const link = resetLinkIn(lastMailTo(user.email)!.text);
    expect(link).toMatch(/^http:\/\/kinetrace\.test\/new-password\/[\w-]+$/);
  });

  it('forgets remembered devices when the password is reset: the next login needs the e-mailed code', async () => {
    const { post, lastMailTo } = accountClient(test);
    const { user, device } = await userOnRememberedDevice(test);
    const skipped = await post('/api/login/', { username: user.username, password: PASSWORD }, device);
    expect(skipped.json()).toMatchObject({ otp_challenge_sent: false });

    await post('/api/reset-password/', { email: user.email });
    const resetToken = resetLinkIn(lastMailTo(user.email)!.text).split('/').at(-1)!;
    const newPassword = 'a brand new passphrase for the lab';
    expect((await post('/api/new-password/', { token: resetToken, password: newPassword })).statusCode).toBe(200);

    const after = await post('/api/login/', { username: user.username, password: newPassword }, device);
    expect(after.statusCode).toBe(200);
    expect(after.json()).toMatchObject({ otp_challenge_sent: true });
    const check = await test.call({
      method: 'GET',
      url: '/api/check-otp-verified/',
      headers: { ...authHeader((after.json() as { token: string }).token), ...device },
    });
    expect(check.json()).toEqual({ otp_verified: false });
  });

  it('stops every older reset link once a newer one has set the password', async () => {
    const { post, lastMailTo } = accountClient(test);
    const user = await verifiedUser(test);
    const linkToken = async () => {
      await post('/api/reset-password/', { email: user.email });
      return resetLinkIn(lastMailTo(user.email)!.text).split('/').at(-1)!;
    };
    const older = await linkToken();
    const newer = await linkToken();
    const password = 'the passphrase chosen with the newer link';
    expect((await post('/api/new-password/', { token: newer, password })).statusCode).toBe(200);

    const stale = await post('/api/new-password/', { token: older, password: 'a passphrase set from an old mail' });
    expect(stale.statusCode).toBe(400);
    expect(stale.json()).toEqual({ detail: messages.invalidResetLink });
    expect((await post('/api/login/', { username: user.username, password })).statusCode).toBe(200);
  });

  it('refuses a password made only of spaces, and does not let surrounding spaces make up the length', async () => {
    const { post, lastMailTo } = accountClient(test);
    const spaces = await post('/api/register/', newUserPayload({ password: ' '.repeat(20) }));
    expect(spaces.statusCode).toBe(400);
    expect(spaces.json()).toEqual({ password: [messages.passwordOnlySpaces] });
    const padded = await post(
      '/api/register/',
      newUserPayload({ password: `  ${'x'.repeat(PASSWORD_MIN_LENGTH - 2)}  ` }),
    );
    expect(padded.json()).toEqual({ password: [messages.passwordTooShort(PASSWORD_MIN_LENGTH)] });

    const user = await verifiedUser(test);
    await post('/api/reset-password/', { email: user.email });
    const resetToken = resetLinkIn(lastMailTo(user.email)!.text).split('/').at(-1)!;
    const refused = await post('/api/new-password/', { token: resetToken, password: '\t'.repeat(25) });
    expect(refused.json()).toEqual({ password: [messages.passwordOnlySpaces] });
    // Spaces inside and around a long enough passphrase are kept as typed: the same text logs in.
    const passphrase = ' my  long passphrase, with spaces ';
    expect((await post('/api/new-password/', { token: resetToken, password: passphrase })).statusCode).toBe(200);
    expect((await post('/api/login/', { username: user.username, password: passphrase })).statusCode).toBe(200);
    expect((await post('/api/login/', { username: user.username, password: passphrase.trim() })).statusCode).toBe(400);
  });
});

// The guessing limits are counted alike on either database: one backend is enough (shared-state.test.ts: on
// PostgreSQL, one limit for two servers).
describe('login throttling, and links of a server without PUBLIC_URL', () => {
  let test: TestApp;
  beforeAll(async () => {
    test = await startTestApp('pglite', { PUBLIC_URL: '', PORT: '8123' });
  });
  afterAll(async () => {
    await test?.close();
  });

  const wrongPassword = 'not the password, but long enough';

  it('mails links on the server’s own origin when no PUBLIC_URL is configured', async () => {
    const { post, lastMailTo } = accountClient(test);
    const user = newUserPayload();
    await post('/api/register/', user);
    await post('/api/reset-password/', { email: user.email, host: 'https://evil.example' }, { host: 'evil.example' });
    expect(resetLinkIn(lastMailTo(user.email)!.text)).toMatch(/^http:\/\/localhost:8123\/new-password\//);
  });

  it('slows a guesser down with growing delays without locking the owner out', async () => {
    const { post } = accountClient(test);
    // The owner remembers this device first (from the guesser's address: a lab behind one NAT).
    const { user: owner, device } = await userOnRememberedDevice(test, '10.9.0.1');

    const guess = (password = wrongPassword) =>
      post('/api/login/', { username: owner.username, password }, {}, '10.9.0.1');
    for (let attempt = 0; attempt < 5; attempt++) expect((await guess()).statusCode).toBe(400);
    const waits: number[] = [];
    try {
      for (let attempt = 0; attempt < 6; attempt++) {
        const refused = await guess();
        expect(refused.statusCode).toBe(429);
        waits.push(Number(refused.headers['retry-after']));
        expect(refused.json()).toEqual({ detail: messages.tooManyAttempts(waits.at(-1)!) });
        test.clock.offsetMs += waits.at(-1)! * 1000;
        expect((await guess()).statusCode).toBe(400);
      }
      expect(waits).toEqual([1, 2, 4, 8, 16, 32]);
      // While it waits, even the right password is not tried: guessing gets no answer.
      expect((await guess(PASSWORD)).statusCode).toBe(429);

      // The owner still gets in: from another address, and from the remembered device at the same address.
      expect(
        (await post('/api/login/', { username: owner.username, password: PASSWORD }, {}, '10.9.0.2')).statusCode,
      ).toBe(200);
      const known = await post('/api/login/', { username: owner.username, password: PASSWORD }, device, '10.9.0.1');
      expect(known.statusCode).toBe(200);
      expect(known.json()).toMatchObject({ otp_challenge_sent: false });
    } finally {
      test.clock.offsetMs = 0;
    }
  });

  it('lets the users behind one address log in after 30 failures from it', async () => {
    const { post } = accountClient(test);
    const colleague = newUserPayload();
    await post('/api/register/', colleague);
    for (let attempt = 0; attempt < 30; attempt++) {
      const response = await post(
        '/api/login/',
        { username: `student_${attempt}`, password: wrongPassword },
        {},
        '10.8.0.1',
      );
      expect(response.statusCode).toBe(400);
    }
    expect(
      (await post('/api/login/', { username: colleague.username, password: PASSWORD }, {}, '10.8.0.1')).statusCode,
    ).toBe(200);
  });

  it('holds back guessing spread over many addresses, except on a device the owner remembered or unlocked by an e-mailed link', async () => {
    const { post, lastMailTo } = accountClient(test);
    const { user: owner, device } = await userOnRememberedDevice(test, '10.7.0.1');
    for (let address = 0; address < 20; address++) {
      for (let attempt = 0; attempt < 5; attempt++) {
        expect(
          (await post('/api/login/', { username: owner.username, password: wrongPassword }, {}, `10.6.${address}.1`))
            .statusCode,
        ).toBe(400);
      }
    }
    const ownerLogin = (headers: Record<string, string> = {}) =>
      post('/api/login/', { username: owner.username, password: PASSWORD }, headers, '10.6.99.1');
    expect((await ownerLogin()).statusCode).toBe(429);
    expect((await ownerLogin(device)).statusCode).toBe(200);

    // From a browser it does not know, the owner asks for an unlock link; whoever asks is answered the same.
    const asked = await post('/api/send-unlock-link/', { username: owner.username.toUpperCase() }, {}, '10.6.99.1');
    const nobody = await post('/api/send-unlock-link/', { username: 'nobody_at_all' }, {}, '10.6.99.1');
    expect([asked.statusCode, nobody.statusCode]).toEqual([200, 200]);
    expect(asked.json()).toEqual({ message: messages.unlockLinkSent });
    expect(nobody.json()).toEqual(asked.json());
    const link = /(https?:\/\/\S+\/unlock-login\/(\S+))/.exec(lastMailTo(owner.email)!.text)!;
    expect(link[1]).toMatch(/^http:\/\/localhost:8123\/unlock-login\//);
    const unlocked = await post('/api/unlock-login/', { token: link[2] });
    expect(unlocked.statusCode).toBe(200);
    const { username, remembered_device_token } = unlocked.json<{
      username: string;
      remembered_device_token: string;
    }>();
    expect(username).toBe(owner.username);
    const unlockedBrowser = { [REMEMBERED_DEVICE_HEADER]: remembered_device_token };
    const login = await ownerLogin(unlockedBrowser);
    expect(login.statusCode).toBe(200);
    expect(login.json()).toMatchObject({ otp_challenge_sent: false });

    // The link works once; the guessers are still held back.
    expect((await post('/api/unlock-login/', { token: link[2] })).json()).toEqual({
      detail: messages.invalidUnlockLink,
    });
    expect((await ownerLogin()).statusCode).toBe(429);
  });

  it('lets an unlock link expire after an hour', async () => {
    const { post, lastMailTo } = accountClient(test);
    const owner = newUserPayload();
    await post('/api/register/', owner, {}, '10.5.0.1');
    await post('/api/send-unlock-link/', { username: owner.username }, {}, '10.5.0.1');
    const token = /\/unlock-login\/(\S+)/.exec(lastMailTo(owner.email)!.text)![1];
    test.clock.offsetMs = UNLOCK_LINK_TTL_MS + 1000;
    try {
      const late = await post('/api/unlock-login/', { token });
      expect(late.statusCode).toBe(400);
      expect(late.json()).toEqual({ detail: messages.invalidUnlockLink });
    } finally {
      test.clock.offsetMs = 0;
    }
  });
});
