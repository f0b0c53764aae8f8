import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '@kinetrace/contracts';
import { mailRateRules } from '../src/services/mail-throttle.ts';
import { accountClient, userOnRememberedDevice } from './support/account-client.ts';
import { authHeader, newUserPayload, PASSWORD, startTestApp, type TestApp } from './support/test-app.ts';

/**
 * Issue 13, loose end 1: the e-mails a caller can make the server send (reset links, login codes) are
 * limited per client address and per recipient, whichever comes first, so that the server mails neither
 * many people from one address nor one person from many; the answers do not tell whether an account
 * has the address. The limits are counted alike on either database: one backend is enough (shared-state.test.ts:
 * on PostgreSQL, one limit for two servers).
 */
describe('mail limits per client address and per recipient', () => {
  let test: TestApp;
  beforeAll(async () => {
    test = await startTestApp('pglite');
  });
  afterAll(async () => {
    await test?.close();
  });

  const mailsTo = (email: string) => test.outbox().filter((mail) => mail.to.includes(email)).length;
  /** A registered (not logged in) user, registered from an address of its own. */
  async function registered(address: string) {
    const user = newUserPayload();
    expect((await accountClient(test).post('/api/register/', user, {}, address)).statusCode).toBe(201);
    return user;
  }
  function expectRefusal(response: { statusCode: number; headers: Record<string, unknown>; json(): unknown }) {
    expect(response.statusCode).toBe(429);
    const waitS = Number(response.headers['retry-after']);
    expect(waitS).toBeGreaterThan(0);
    expect(response.json()).toEqual({ detail: messages.tooManyAttempts(waitS) });
  }

  it('mails reset links for one address to at most 3 askers an hour, answering the same whether or not an account has it', async () => {
    const { post } = accountClient(test);
    const user = await registered('10.20.0.1');
    const unknown = `nobody-${user.email}`;
    const askFromManyAddresses = async (email: string, first: number) => {
      const answers = [];
      for (let asker = first; asker < first + 5; asker++)
        answers.push(await post('/api/reset-password/', { email }, {}, `10.21.${asker}.1`));
      return answers;
    };
    const known = await askFromManyAddresses(user.email.toUpperCase(), 0);
    const nobody = await askFromManyAddresses(unknown, 10);
    const limit = mailRateRules.reset.perRecipient.limit;
    expect(known.map((answer) => answer.statusCode)).toEqual([200, 200, 200, 429, 429]);
    expect(nobody.map((answer) => answer.statusCode)).toEqual(known.map((answer) => answer.statusCode));
    expect(known.slice(0, limit).map((answer) => answer.json())).toEqual(nobody.slice(0, limit).map((a) => a.json()));
    expectRefusal(known[limit]);
    expectRefusal(nobody[limit]);
    expect(mailsTo(user.email)).toBe(limit);

    test.clock.offsetMs = mailRateRules.reset.perRecipient.windowMs;
    try {
      expect((await post('/api/reset-password/', { email: user.email }, {}, '10.21.99.1')).statusCode).toBe(200);
      expect(mailsTo(user.email)).toBe(limit + 1);
    } finally {
      test.clock.offsetMs = 0;
    }
  });

  it('takes at most 3 registrations naming one e-mail address an hour, answering the same whether or not an account has it', async () => {
    const { post } = accountClient(test);
    const owner = await registered('10.27.0.1');
    const mailsBefore = mailsTo(owner.email);
    const registerWith = async (email: string, first: number) => {
      const answers = [];
      for (let asker = first; asker < first + 5; asker++)
        answers.push(await post('/api/register/', { ...newUserPayload(), email }, {}, `10.28.${asker}.1`));
      return answers.map((answer) => answer.statusCode);
    };
    const limit = mailRateRules.register.perRecipient.limit;
    // The owner's registration counted once already.
    const expected = [...Array(limit - 1).fill(201), ...Array(5 - limit + 1).fill(429)];
    expect(await registerWith(owner.email, 0)).toEqual(expected);
    const nobody = `${owner.username}@elsewhere.example`;
    expect(await registerWith(nobody, 10)).toEqual([201, ...expected.slice(0, 4)]);
    // Each attempt let through told the owner; none was made an account.
    expect(mailsTo(owner.email) - mailsBefore).toBe(limit - 1);
  });

  it('lets one client address ask for at most 10 reset links an hour, to whatever addresses', async () => {
    const { post } = accountClient(test);
    const limit = mailRateRules.reset.perClientAddress.limit;
    for (let recipient = 0; recipient < limit; recipient++) {
      const asked = await post('/api/reset-password/', { email: `person${recipient}@spam.example` }, {}, '10.22.0.1');
      expect(asked.statusCode).toBe(200);
    }
    expectRefusal(await post('/api/reset-password/', { email: 'one-more@spam.example' }, {}, '10.22.0.1'));
  });

  it('mails one account at most 20 login codes an hour from however many addresses, and a remembered device still gets in', async () => {
    const { post } = accountClient(test);
    const { user, device } = await userOnRememberedDevice(test, '10.23.0.1'); // one code mailed
    const login = (address: string, headers = {}) =>
      post('/api/login/', { username: user.username, password: PASSWORD }, headers, address);
    const limit = mailRateRules.code.perRecipient.limit;
    let token = '';
    for (let address = 1; address < limit; address++) {
      const answer = await login(`10.24.${address}.1`);
      expect(answer.statusCode).toBe(200);
      token = (answer.json() as { token: string }).token;
    }
    expect(mailsTo(user.email)).toBe(limit);
    expectRefusal(await login('10.24.200.1'));
    expectRefusal(await post('/api/reset-otp-challenge/', undefined, authHeader(token), '10.24.201.1'));
    expect(mailsTo(user.email)).toBe(limit);

    const known = await login('10.24.202.1', device);
    expect(known.statusCode).toBe(200);
    expect(known.json()).toMatchObject({ otp_challenge_sent: false });
  });

  it('lets one client address make at most 60 login codes an hour, over however many accounts', async () => {
    const { post } = accountClient(test);
    const perRecipient = mailRateRules.code.perRecipient.limit;
    const limit = mailRateRules.code.perClientAddress.limit;
    const users: ReturnType<typeof newUserPayload>[] = [];
    for (let index = 0; index <= limit / perRecipient; index++) users.push(await registered(`10.25.${index}.1`));
    const login = (user: (typeof users)[number]) =>
      post('/api/login/', { username: user.username, password: PASSWORD }, {}, '10.26.0.1');
    for (let attempt = 0; attempt < limit; attempt++) {
      expect((await login(users[Math.floor(attempt / perRecipient)])).statusCode).toBe(200);
    }
    const fresh = users.at(-1)!;
    expectRefusal(await login(fresh));
    expect(mailsTo(fresh.email)).toBe(0);
    // The same account from another address still gets its code.
    expect(
      (await post('/api/login/', { username: fresh.username, password: PASSWORD }, {}, '10.26.0.2')).statusCode,
    ).toBe(200);
    expect(mailsTo(fresh.email)).toBe(1);
  });
});
