import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import {
  messages,
  PERSONAL_TOKEN_TTL_MS,
  PERSONAL_TOKENS_MAX,
  SESSION_DURATION_MS,
  type CreatedPersonalToken,
  type PersonalToken,
} from '@kinetrace/contracts';
import { schema } from '@kinetrace/db';
import { accountClient } from './support/account-client.ts';
import { resetLinkIn } from './support/outbox.ts';
import { subjectBody } from './support/owned-data.ts';
import { authHeader, startTestApp, testBackends, verifiedUser, type TestApp } from './support/test-app.ts';

const backends = await testBackends();

/**
 * Personal API tokens (issue 22): a script's credential, made and revoked by a browser login, sent as
 * "Authorization: Token <t>" as OpenCap's client sends its token. The read-only default deny on every
 * route is the authorization matrix's (authorization-matrix.test.ts); here, what a token's owner sees.
 */
describe.each(backends)('personal API tokens on %s', (backend) => {
  let test: TestApp;
  beforeAll(async () => {
    test = await startTestApp(backend);
  });
  afterAll(async () => {
    await test?.close();
  });

  const postToken = (login: string, payload: { name: string; access: string }) =>
    test.call({ method: 'POST', url: '/api/personal-tokens/', headers: authHeader(login), payload });
  const createToken = async (login: string, access: 'read' | 'read_write', name = 'analysis script') => {
    const response = await postToken(login, { name, access });
    expect(response.statusCode, response.body).toBe(201);
    return response.json() as CreatedPersonalToken;
  };
  const listTokens = async (login: string) => {
    const response = await test.call({ method: 'GET', url: '/api/personal-tokens/', headers: authHeader(login) });
    expect(response.statusCode).toBe(200);
    return response.json() as PersonalToken[];
  };
  const get = (url: string, token: string) => test.call({ method: 'GET', url, headers: authHeader(token) });
  const revoke = (login: string, id: number) =>
    test.call({ method: 'POST', url: `/api/personal-tokens/${id}/revoke/`, headers: authHeader(login) });

  it('shows a new token once: the list names it without the secret, and the database holds only its hash', async () => {
    const { token: login } = await verifiedUser(test);
    const created = await createToken(login, 'read', '  nightly export  ');
    expect(created.token).toMatch(/^ktp_[\w-]{43}$/);
    expect(created).toMatchObject({ name: 'nightly export', access: 'read' });

    const listed = await listTokens(login);
    expect(listed).toEqual([
      {
        id: created.id,
        name: 'nightly export',
        access: 'read',
        created_at: created.created_at,
        expires_at: created.expires_at,
      },
    ]);
    expect(JSON.stringify(listed)).not.toContain(created.token);

    const [row] = await test.backends.database.db
      .select()
      .from(schema.authTokens)
      .where(eq(schema.authTokens.id, created.id));
    expect(row.tokenHash).toBe(createHash('sha256').update(created.token).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(created.token);
  });

  it('lets a read-write token read and write as its owner with no e-mailed code', async () => {
    const { token: login, username } = await verifiedUser(test);
    const { token } = await createToken(login, 'read_write');
    const me = await get('/api/me/', token);
    expect(me.json()).toMatchObject({ username, verified: true });
    const subject = await test.call({
      method: 'POST',
      url: '/api/subjects/',
      headers: authHeader(token),
      payload: subjectBody,
    });
    expect(subject.statusCode).toBe(201);
    const session = await get('/api/sessions/new/', token);
    expect(session.statusCode).toBe(200);
    expect((await get('/api/sessions/', token)).json()).toHaveLength(1);
  });

  it('lets a read-only token read, and refuses it where a route writes, a GET that writes included', async () => {
    const { token: login } = await verifiedUser(test);
    const { token } = await createToken(login, 'read');
    expect((await get('/api/sessions/', token)).json()).toEqual([]);
    expect((await get('/api/subjects/', token)).statusCode).toBe(200);

    const refusals = [
      await get('/api/sessions/new/', token),
      await test.call({ method: 'POST', url: '/api/subjects/', headers: authHeader(token), payload: subjectBody }),
      await test.call({ method: 'POST', url: '/api/logout/', headers: authHeader(token) }),
    ];
    for (const refusal of refusals) {
      expect(refusal.statusCode).toBe(403);
      expect(refusal.json()).toEqual({ detail: messages.readOnlyToken });
    }
    expect((await get('/api/sessions/', login)).json()).toEqual([]);
    expect((await get('/api/subjects/', login)).json()).toMatchObject({ subjects: [] });
    expect((await get('/api/me/', token)).statusCode).toBe(200); // logout was refused: the token still works
  });

  it('refuses any token to make, list or revoke tokens, change the account’s e-mail or delete the account', async () => {
    const { token: login, username } = await verifiedUser(test);
    const readWrite = await createToken(login, 'read_write');
    const calls = [
      { method: 'GET', url: '/api/personal-tokens/' },
      { method: 'POST', url: '/api/personal-tokens/', payload: { name: 'more', access: 'read_write' } },
      { method: 'POST', url: `/api/personal-tokens/${readWrite.id}/revoke/` },
      {
        method: 'POST',
        url: '/api/update_profile/',
        payload: {
          first_name: 'Eve',
          last_name: 'Taker',
          email: `taker_${Date.now()}@elsewhere.example.org`,
          country: 'United States',
          institution: 'Elsewhere',
          profession: 'None',
          reason: 'Taking over',
          website: '',
          newsletter: false,
        },
      },
      { method: 'POST', url: '/api/delete-account/', payload: { confirm: username } },
    ] as const;
    for (const call of calls) {
      const answer = await test.call({ ...call, headers: authHeader(readWrite.token) });
      expect(answer.statusCode, call.url).toBe(403);
      expect(answer.json(), call.url).toEqual({ detail: messages.browserLoginOnly });
    }
    expect((await listTokens(login)).map((token) => token.id)).toEqual([readWrite.id]);
    expect((await get('/api/me/', login)).statusCode).toBe(200);
  });

  it('ends a revoked token at once; another user cannot revoke it', async () => {
    const { token: login } = await verifiedUser(test);
    const { token: otherLogin } = await verifiedUser(test);
    const created = await createToken(login, 'read_write');

    const stranger = await revoke(otherLogin, created.id);
    expect(stranger.statusCode).toBe(404);
    expect(stranger.json()).toEqual({ detail: messages.personalTokenNotFound });
    expect((await get('/api/me/', created.token)).statusCode).toBe(200);

    expect((await revoke(login, created.id)).json()).toEqual({ message: messages.personalTokenRevoked });
    expect((await get('/api/me/', created.token)).statusCode).toBe(401);
    expect(await listTokens(login)).toEqual([]);
    expect((await revoke(login, created.id)).statusCode).toBe(404);
    // Revoking a token is not logging out: the browser's login goes on.
    expect((await get('/api/me/', login)).statusCode).toBe(200);
  });

  it('outlives the 12-hour login and ends after a year', async () => {
    const { token: login } = await verifiedUser(test);
    const created = await createToken(login, 'read');
    expect(Date.parse(created.expires_at) - Date.parse(created.created_at)).toBe(PERSONAL_TOKEN_TTL_MS);
    try {
      test.clock.offsetMs = SESSION_DURATION_MS + 1000;
      expect((await get('/api/me/', login)).statusCode).toBe(401);
      expect((await get('/api/sessions/', created.token)).statusCode).toBe(200);
      test.clock.offsetMs = PERSONAL_TOKEN_TTL_MS + 1000;
      expect((await get('/api/sessions/', created.token)).statusCode).toBe(401);
    } finally {
      test.clock.offsetMs = 0;
    }
  });

  it('ends every personal token when the password is set anew', async () => {
    const user = await verifiedUser(test);
    const { post, lastMailTo } = accountClient(test);
    const created = await createToken(user.token, 'read_write');
    await post('/api/reset-password/', { email: user.email });
    const resetToken = resetLinkIn(lastMailTo(user.email)!.text).split('/').at(-1)!;
    expect(
      (await post('/api/new-password/', { token: resetToken, password: 'an entirely new passphrase' })).statusCode,
    ).toBe(200);
    expect((await get('/api/me/', created.token)).statusCode).toBe(401);
  });

  it(`refuses a token beyond ${PERSONAL_TOKENS_MAX}, and a name or access the form would refuse, field by field`, async () => {
    const { token: login } = await verifiedUser(test);
    const invalid = await postToken(login, { name: ' ', access: 'admin' });
    expect(invalid.statusCode).toBe(400);
    expect(Object.keys(invalid.json() as object).sort()).toEqual(['access', 'name']);
    expect((invalid.json() as { name: string[] }).name).toEqual([messages.required]);

    for (let index = 0; index < PERSONAL_TOKENS_MAX; index++) await createToken(login, 'read', `token ${index}`);
    const beyond = await postToken(login, { name: 'one more', access: 'read' });
    expect(beyond.statusCode).toBe(400);
    expect(beyond.json()).toEqual({ non_field_errors: [messages.personalTokensMax(PERSONAL_TOKENS_MAX)] });
  });
});
