import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  LOGIN_ABSOLUTE_LIMIT_MS,
  LOGIN_SLIDE_STEP_MS,
  messages,
  OTP_MAX_WRONG_ATTEMPTS,
  OTP_TTL_MS,
  PASSWORD_RESET_TTL_MS,
  REMEMBERED_DEVICE_HEADER,
  SESSION_DURATION_MS,
} from '@kinetrace/contracts';
import { accountClient, type AccountClient } from './support/account-client.ts';
import { codeIn, resetLinkIn } from './support/outbox.ts';
import {
  authHeader,
  newUserPayload,
  PASSWORD,
  startTestApp,
  testBackends,
  verifiedUser,
  type TestApp,
} from './support/test-app.ts';

const backends = await testBackends();

describe.each(backends)('accounts on %s', (backend) => {
  let test: TestApp;
  let post: AccountClient['post'];
  let lastMailTo: AccountClient['lastMailTo'];
  beforeAll(async () => {
    test = await startTestApp(backend);
    ({ post, lastMailTo } = accountClient(test));
  });
  afterAll(async () => {
    await test?.close();
  });

  async function registerAndLogin(overrides: Record<string, unknown> = {}) {
    const user = newUserPayload(overrides);
    expect((await post('/api/register/', user)).statusCode).toBe(201);
    const login = await post('/api/login/', { username: user.username, password: PASSWORD });
    expect(login.statusCode).toBe(200);
    return { ...user, token: (login.json() as { token: string }).token };
  }

  describe('registration', () => {
    it('creates a user and refuses a second one with the same username, whatever the case', async () => {
      const user = newUserPayload();
      const created = await post('/api/register/', user);
      expect(created.statusCode).toBe(201);
      expect(created.json()).toEqual({ username: user.username, message: messages.userCreated });

      const clash = await post('/api/register/', { ...newUserPayload(), username: user.username.toUpperCase() });
      expect(clash.statusCode).toBe(400);
      expect(clash.json()).toEqual({ username: [messages.usernameTaken] });
    });

    it('does not tell whether an e-mail address has an account: its owner is told by e-mail instead', async () => {
      // From an address of its own, so that its registrations leave the others' allowance alone.
      const register = (payload: Record<string, unknown>) => post('/api/register/', payload, {}, '10.30.0.1');
      const owner = newUserPayload();
      expect((await register(owner)).statusCode).toBe(201);
      const mailsBefore = test.outbox().length;

      const fresh = newUserPayload();
      const taken = { ...newUserPayload(), email: owner.email.toUpperCase() };
      const answers = [await register(fresh), await register(taken)];
      expect(answers.map((answer) => answer.statusCode)).toEqual([201, 201]);
      expect(answers.map((answer) => answer.json())).toEqual([
        { username: fresh.username, message: messages.userCreated },
        { username: taken.username, message: messages.userCreated },
      ]);

      // No second account has the address: the one who tried cannot log in, and the owner still can.
      expect((await post('/api/login/', { username: taken.username, password: PASSWORD })).statusCode).toBe(400);
      expect((await post('/api/login/', { username: owner.username, password: PASSWORD })).statusCode).toBe(200);
      const notice = test.outbox().slice(mailsBefore)[0];
      expect(notice.to).toContain(owner.email);
      expect(notice.text).toContain('tried to create');
      expect(notice.text).toContain(owner.username);
      expect(notice.text).toContain('http://kinetrace.test/reset-password');
      expect(notice.text).not.toContain(taken.username);
    });

    it('answers invalid input with field-keyed messages, never a 500', async () => {
      const invalid = await post('/api/register/', {
        ...newUserPayload(),
        password: 'short',
        email: 'nope',
        first_name: '',
      });
      expect(invalid.statusCode).toBe(400);
      expect(invalid.json()).toMatchObject({
        password: [messages.passwordTooShort(20)],
        email: [messages.invalidEmail],
        first_name: [messages.required],
      });
      for (const payload of [undefined, 'not json', [], { username: 42 }, { username: 'x'.repeat(100_000) }]) {
        const response = await test.call({
          method: 'POST',
          url: '/api/register/',
          payload: payload as string,
          headers: { 'content-type': 'application/json' },
        });
        expect(response.statusCode, JSON.stringify(payload)?.slice(0, 40)).toBeGreaterThanOrEqual(400);
        expect(response.statusCode).toBeLessThan(500);
      }
    });
  });

  describe('login and the e-mailed code', () => {
    it('gives the same answer for an unknown user and a wrong password', async () => {
      const user = newUserPayload();
      await post('/api/register/', user);
      const unknown = await post('/api/login/', { username: `nobody_${user.username}`, password: PASSWORD });
      const wrong = await post('/api/login/', { username: user.username, password: `${PASSWORD}!` });
      expect(unknown.statusCode).toBe(400);
      expect(wrong.statusCode).toBe(400);
      expect(unknown.body).toBe(wrong.body);
      expect(wrong.json()).toEqual({ non_field_errors: [messages.invalidCredentials] });
    });

    it('sends a 6-digit code at login and lets the main app in only after it is entered', async () => {
      const user = await registerAndLogin();
      const login = await post('/api/login/', { username: user.username, password: PASSWORD });
      expect(login.json()).toMatchObject({
        user_id: expect.any(Number),
        institutional_use: null,
        otp_challenge_sent: true,
      });
      const { token } = login.json() as { token: string };

      const me = await test.call({ method: 'GET', url: '/api/me/', headers: authHeader(token) });
      expect(me.json()).toMatchObject({ username: user.username, verified: false });
      const tooEarly = await post(
        '/api/set-institutional-use/',
        { institutional_use: 'research_at_academic' },
        authHeader(token),
      );
      expect(tooEarly.statusCode).toBe(403);

      const code = codeIn(lastMailTo(user.email)!.text);
      expect(code).toMatch(/^\d{6}$/);
      const verified = await post('/api/verify/', { otp_token: ` ${code} ` }, authHeader(token));
      expect(verified.statusCode).toBe(200);
      expect(verified.json()).toEqual({ otp_verified: true });
      expect(
        (await post('/api/set-institutional-use/', { institutional_use: 'research_at_academic' }, authHeader(token)))
          .statusCode,
      ).toBe(200);
      const again = await post('/api/login/', { username: user.username, password: PASSWORD });
      expect(again.json()).toMatchObject({ institutional_use: 'research_at_academic' });
    });

    it('refuses a sixth wrong code even when it is right, until a new code is sent', async () => {
      const user = await registerAndLogin();
      const code = codeIn(lastMailTo(user.email)!.text);
      const wrong = code === '000000' ? '111111' : '000000';
      for (let attempt = 1; attempt <= OTP_MAX_WRONG_ATTEMPTS; attempt++) {
        const response = await post('/api/verify/', { otp_token: wrong }, authHeader(user.token));
        expect(response.statusCode).toBe(400);
        expect(response.json()).toEqual({
          otp_token: [attempt < OTP_MAX_WRONG_ATTEMPTS ? messages.invalidCode : messages.tooManyWrongCodes],
        });
      }
      const rightButTooLate = await post('/api/verify/', { otp_token: code }, authHeader(user.token));
      expect(rightButTooLate.statusCode).toBe(400);
      expect(rightButTooLate.json()).toEqual({ otp_token: [messages.tooManyWrongCodes] });

      expect((await post('/api/reset-otp-challenge/', undefined, authHeader(user.token))).statusCode).toBe(200);
      const newCode = codeIn(lastMailTo(user.email)!.text);
      expect((await post('/api/verify/', { otp_token: newCode }, authHeader(user.token))).statusCode).toBe(200);
    });

    it('counts each try before comparing it: 100 codes at once get no more than five compared', async () => {
      const user = await registerAndLogin();
      const code = codeIn(lastMailTo(user.email)!.text);
      const wrong = (index: number) => String((Number(code) + index + 1) % 1_000_000).padStart(6, '0');
      const rightAt = 90;
      const answers = await Promise.all(
        Array.from({ length: 100 }, (_, index) =>
          post(
            '/api/verify/',
            { otp_token: index === rightAt ? code : wrong(index) },
            authHeader(user.token),
            '10.20.0.1', // its own address, whose wrong codes hold back no other test
          ),
        ),
      );
      const invalid = answers.filter(
        (answer) => answer.json<{ otp_token?: string[] }>().otp_token?.[0] === messages.invalidCode,
      );
      // Tries 1 to 4 may say "invalid code", the fifth says "too many", and every later one is refused
      // unread (by the code's count, or the account's wrong-code limit once it has counted them): the right
      // code, 91st in the burst, among them (the old code compared every try and accepted it).
      expect(invalid.length).toBeLessThanOrEqual(OTP_MAX_WRONG_ATTEMPTS - 1);
      expect(answers[rightAt].statusCode).not.toBe(200);
      const check = await test.call({
        method: 'GET',
        url: '/api/check-otp-verified/',
        headers: authHeader(user.token),
      });
      expect(check.json()).toEqual({ otp_verified: false });
    });

    it('lets a code expire after 10 minutes and replaces the old code when a new one is sent', async () => {
      const user = await registerAndLogin();
      const first = codeIn(lastMailTo(user.email)!.text);
      await post('/api/reset-otp-challenge/', undefined, authHeader(user.token));
      const second = codeIn(lastMailTo(user.email)!.text);
      if (first !== second) {
        expect((await post('/api/verify/', { otp_token: first }, authHeader(user.token))).statusCode).toBe(400);
      }
      test.clock.offsetMs = OTP_TTL_MS + 1000;
      try {
        const expired = await post('/api/verify/', { otp_token: second }, authHeader(user.token));
        expect(expired.json()).toEqual({ otp_token: [messages.codeExpired] });
      } finally {
        test.clock.offsetMs = 0;
      }
    });

    it('remembers a device for 90 days: no code is sent and check-otp-verified passes', async () => {
      const user = await registerAndLogin();
      const code = codeIn(lastMailTo(user.email)!.text);
      const verified = await post('/api/verify/', { otp_token: code, remember_device: true }, authHeader(user.token));
      const deviceToken = (verified.json() as { remembered_device_token: string }).remembered_device_token;
      expect(deviceToken).toEqual(expect.any(String));

      const mailsBefore = test.outbox().length;
      const login = await post(
        '/api/login/',
        { username: user.username, password: PASSWORD },
        { [REMEMBERED_DEVICE_HEADER]: deviceToken },
      );
      expect(login.json()).toMatchObject({ otp_challenge_sent: false });
      expect(test.outbox().length).toBe(mailsBefore);
      const token = (login.json() as { token: string }).token;
      const check = await test.call({
        method: 'GET',
        url: '/api/check-otp-verified/',
        headers: { ...authHeader(token), [REMEMBERED_DEVICE_HEADER]: deviceToken },
      });
      expect(check.json()).toEqual({ otp_verified: true });

      // Another browser, without the device token, still needs the code.
      const other = await post('/api/login/', { username: user.username, password: PASSWORD });
      const otherToken = (other.json() as { token: string }).token;
      const otherCheck = await test.call({
        method: 'GET',
        url: '/api/check-otp-verified/',
        headers: authHeader(otherToken),
      });
      expect(otherCheck.json()).toEqual({ otp_verified: false });
      // A device token of someone else does not help.
      const stranger = await registerAndLogin();
      const strangerCheck = await test.call({
        method: 'GET',
        url: '/api/check-otp-verified/',
        headers: { ...authHeader(stranger.token), [REMEMBERED_DEVICE_HEADER]: deviceToken },
      });
      expect(strangerCheck.json()).toEqual({ otp_verified: false });
    });

    it('ends a login after 12 hours and at logout', async () => {
      const user = await verifiedUser(test);
      const me = () => test.call({ method: 'GET', url: '/api/me/', headers: authHeader(user.token) });
      expect((await me()).statusCode).toBe(200);
      test.clock.offsetMs = SESSION_DURATION_MS + 1000;
      try {
        expect((await me()).statusCode).toBe(401);
      } finally {
        test.clock.offsetMs = 0;
      }
      expect((await post('/api/logout/', undefined, authHeader(user.token))).statusCode).toBe(200);
      expect((await me()).statusCode).toBe(401);
    });

    it('keeps a login in use alive: 12 hours after its last call, at most 30 days after the login, never after logout', async () => {
      const user = await verifiedUser(test);
      const me = () => test.call({ method: 'GET', url: '/api/me/', headers: authHeader(user.token) });
      const hours = (count: number) => count * 3_600_000;
      try {
        // A call every 11 hours keeps the login past the 12 hours after it began.
        for (const offsetMs of [hours(11), hours(22), hours(33)]) {
          test.clock.offsetMs = offsetMs;
          const answer = await me();
          expect(answer.statusCode).toBe(200);
          expect(Date.parse((answer.json() as { expires_at: string }).expires_at)).toBeGreaterThanOrEqual(
            Date.now() + offsetMs + SESSION_DURATION_MS - LOGIN_SLIDE_STEP_MS,
          );
        }
        // 12 hours after the last call it is over, and a call then does not bring it back.
        test.clock.offsetMs = hours(33) + SESSION_DURATION_MS + 1000;
        expect((await me()).statusCode).toBe(401);
        test.clock.offsetMs = hours(46);
        expect((await me()).statusCode).toBe(401);

        // However active, a login ends 30 days after it began.
        const busy = await verifiedUser(test);
        const busyMe = () => test.call({ method: 'GET', url: '/api/me/', headers: authHeader(busy.token) });
        let offsetMs = hours(46);
        for (; offsetMs < hours(46) + LOGIN_ABSOLUTE_LIMIT_MS - hours(10); offsetMs += hours(10)) {
          test.clock.offsetMs = offsetMs;
          expect((await busyMe()).statusCode, `${offsetMs / hours(24)} days in`).toBe(200);
        }
        test.clock.offsetMs = hours(46) + LOGIN_ABSOLUTE_LIMIT_MS + 1000;
        expect((await busyMe()).statusCode).toBe(401);

        // A login moved forward ends at logout like any other.
        const leaving = await verifiedUser(test);
        const leavingMe = () => test.call({ method: 'GET', url: '/api/me/', headers: authHeader(leaving.token) });
        test.clock.offsetMs += hours(11);
        expect((await leavingMe()).statusCode).toBe(200);
        expect((await post('/api/logout/', undefined, authHeader(leaving.token))).statusCode).toBe(200);
        expect((await leavingMe()).statusCode).toBe(401);
        test.clock.offsetMs += hours(1);
        expect((await leavingMe()).statusCode).toBe(401);
      } finally {
        test.clock.offsetMs = 0;
      }
    });

    it('does not move the expiry of a login still waiting for its e-mailed code', async () => {
      const user = await registerAndLogin();
      const me = () => test.call({ method: 'GET', url: '/api/me/', headers: authHeader(user.token) });
      try {
        test.clock.offsetMs = 11 * 3_600_000;
        expect((await me()).statusCode).toBe(200);
        test.clock.offsetMs = SESSION_DURATION_MS + 1000;
        expect((await me()).statusCode).toBe(401);
      } finally {
        test.clock.offsetMs = 0;
      }
    });
  });

  describe('rate limits', () => {
    // Login throttling (per account and address, growing delays) is tested in security-accounts.test.ts.
    it('answers 429 when codes are guessed too often for one account', async () => {
      const user = await registerAndLogin();
      let last = 0;
      for (let attempt = 0; attempt < 11; attempt++) {
        // New codes keep the per-code limit from answering first; the per-account limit still counts.
        if (attempt % 4 === 0 && attempt > 0)
          await post('/api/reset-otp-challenge/', undefined, authHeader(user.token), `10.3.0.${attempt}`);
        last = (await post('/api/verify/', { otp_token: '999999' }, authHeader(user.token), `10.3.0.${attempt}`))
          .statusCode;
      }
      expect(last).toBe(429);
    });
  });

  describe('password reset', () => {
    it('sends a single-use link, sets the new password and ends every login', async () => {
      const user = await verifiedUser(test);
      const unknown = await post('/api/reset-password/', {
        email: `nobody-${user.email}`,
        host: 'http://kinetrace.test',
      });
      const known = await post('/api/reset-password/', {
        email: user.email.toUpperCase(),
        host: 'http://evil.example',
      });
      expect(known.statusCode).toBe(200);
      expect(unknown.body).toBe(known.body);
      expect(known.json()).toEqual({ message: messages.passwordRecoveryEmailSent });

      const link = resetLinkIn(lastMailTo(user.email)!.text);
      expect(link.startsWith('http://kinetrace.test/new-password/')).toBe(true); // a foreign host is not trusted
      const token = link.split('/').at(-1)!;
      const newPassword = 'an entirely new passphrase';
      expect((await post('/api/new-password/', { token, password: 'too short' })).json()).toEqual({
        password: [messages.passwordTooShort(20)],
      });
      const changed = await post('/api/new-password/', { token, password: newPassword });
      expect(changed.json()).toEqual({ message: messages.passwordChanged });

      const reused = await post('/api/new-password/', { token, password: 'yet another passphrase!!' });
      expect(reused.statusCode).toBe(400);
      expect(reused.json()).toEqual({ detail: messages.invalidResetLink });
      expect((await test.call({ method: 'GET', url: '/api/me/', headers: authHeader(user.token) })).statusCode).toBe(
        401,
      );
      expect((await post('/api/login/', { username: user.username, password: PASSWORD })).statusCode).toBe(400);
      expect((await post('/api/login/', { username: user.username, password: newPassword })).statusCode).toBe(200);
    });

    it('refuses a link older than one hour', async () => {
      const user = await verifiedUser(test);
      await post('/api/reset-password/', { email: user.email });
      const token = resetLinkIn(lastMailTo(user.email)!.text).split('/').at(-1)!;
      test.clock.offsetMs = PASSWORD_RESET_TTL_MS + 1000;
      try {
        expect((await post('/api/new-password/', { token, password: 'an entirely new passphrase' })).statusCode).toBe(
          400,
        );
      } finally {
        test.clock.offsetMs = 0;
      }
    });
  });

  describe('profile', () => {
    it('shows a profile to anyone, with private preferences only to its owner', async () => {
      const owner = await verifiedUser(test);
      const anonymous = await post('/api/get_user_info/', { username: owner.username });
      expect(anonymous.statusCode).toBe(200);
      expect(anonymous.json()).toMatchObject({
        username: owner.username,
        institution: 'Gait Lab',
        profile_picture: null,
      });
      expect(anonymous.json()).not.toHaveProperty('newsletter');
      const own = await post('/api/get_user_info/', { username: owner.username }, authHeader(owner.token));
      expect(own.json()).toMatchObject({ newsletter: true });
      const missing = await post('/api/get_user_info/', { username: 'no_such_user' });
      expect(missing.statusCode).toBe(404);
      expect(missing.json()).toEqual({ detail: messages.userDoesNotExist('no_such_user') });
    });

    it('updates the profile with the same rules as registration', async () => {
      const owner = await verifiedUser(test);
      const other = await verifiedUser(test);
      const changes = {
        first_name: 'Grace',
        last_name: 'Hopper',
        email: `new-${owner.email}`,
        country: 'France',
        institution: 'Clinic',
        profession: 'Physiotherapist',
        reason: 'Rehabilitation',
        website: 'https://lab.example.org',
        newsletter: false,
      };
      const updated = await post('/api/update_profile/', changes, authHeader(owner.token));
      expect(updated.statusCode).toBe(200);
      expect(updated.json()).toMatchObject({ ...changes, personalWebsite: changes.website });
      const clash = await post('/api/update_profile/', { ...changes, email: other.email }, authHeader(owner.token));
      expect(clash.json()).toEqual({ email: [messages.emailTaken] });
      const invalid = await post(
        '/api/update_profile/',
        { ...changes, country: 'Atlantis', institution: '' },
        authHeader(owner.token),
      );
      expect(Object.keys(invalid.json() as object).sort()).toEqual(['country', 'institution']);
      expect((await post('/api/update_profile/', changes)).statusCode).toBe(401);
    });

    it('accepts a picture only when its bytes are an image of at most 5 MB, and serves it', async () => {
      const owner = await verifiedUser(test);
      const upload = (content: Buffer, filename: string, username = owner.username) => {
        const boundary = '----kinetrace';
        const body = Buffer.concat([
          Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="username"\r\n\r\n${username}\r\n`),
          Buffer.from(
            `--${boundary}\r\nContent-Disposition: form-data; name="profile_picture"; filename="${filename}"\r\nContent-Type: image/png\r\n\r\n`,
          ),
          content,
          Buffer.from(`\r\n--${boundary}--\r\n`),
        ]);
        return test.call({
          method: 'POST',
          url: '/api/update_profile_picture/',
          payload: body,
          headers: { ...authHeader(owner.token), 'content-type': `multipart/form-data; boundary=${boundary}` },
        });
      };
      const png = Buffer.from(
        'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
        'base64',
      );
      const fake = await upload(Buffer.from('<script>alert(1)</script>'), 'evil.png');
      expect(fake.statusCode).toBe(400);
      expect(fake.json()).toEqual({ profile_picture: [messages.pictureNotImage] });
      const huge = await upload(Buffer.concat([png, Buffer.alloc(5 * 1024 * 1024)]), 'huge.png');
      expect(huge.statusCode).toBe(400);
      expect(huge.json()).toEqual({ profile_picture: [messages.pictureTooLarge(5)] });
      expect((await upload(png, 'x.png', 'someone_else')).statusCode).toBe(403);

      const ok = await upload(png, 'me.png');
      expect(ok.statusCode).toBe(200);
      const url = (ok.json() as { profile_picture: string }).profile_picture;
      expect(url).toMatch(/^\/api\/media\/profile-pictures\/\d+\/[a-f0-9]{16}\.png$/);
      const served = await test.call({ method: 'GET', url });
      expect(served.statusCode).toBe(200);
      expect(served.headers['content-type']).toBe('image/png');
      expect(served.rawPayload.equals(png)).toBe(true);
    });

    it('saves the licence answer, refusing values outside the enumeration', async () => {
      const user = await verifiedUser(test);
      const invalid = await post(
        '/api/set-institutional-use/',
        { institutional_use: 'selling' },
        authHeader(user.token),
      );
      expect(invalid.statusCode).toBe(400);
      expect(invalid.json()).toHaveProperty('institutional_use');
      expect(
        (await post('/api/set-institutional-use/', { institutional_use: 'patient_care' }, authHeader(user.token)))
          .statusCode,
      ).toBe(200);
      const me = await test.call({ method: 'GET', url: '/api/me/', headers: authHeader(user.token) });
      expect(me.json()).toMatchObject({ institutional_use: 'patient_care' });
    });

    it('deletes the account, its rows and its files, only when the username is typed', async () => {
      const user = await verifiedUser(test);
      const png = Buffer.from(
        'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
        'base64',
      );
      const boundary = 'b0undary';
      const picture = await test.call({
        method: 'POST',
        url: '/api/update_profile_picture/',
        headers: { ...authHeader(user.token), 'content-type': `multipart/form-data; boundary=${boundary}` },
        payload: Buffer.concat([
          Buffer.from(
            `--${boundary}\r\nContent-Disposition: form-data; name="profile_picture"; filename="p.png"\r\n\r\n`,
          ),
          png,
          Buffer.from(`\r\n--${boundary}--\r\n`),
        ]),
      });
      const pictureUrl = (picture.json() as { profile_picture: string }).profile_picture;

      const wrong = await post(
        '/api/delete-account/',
        { confirm: user.username.toUpperCase() },
        authHeader(user.token),
      );
      expect(wrong.json()).toEqual({ confirm: [messages.deleteConfirmMismatch] });
      const deleted = await post('/api/delete-account/', { confirm: user.username }, authHeader(user.token));
      expect(deleted.json()).toEqual({ message: messages.accountDeleted });

      expect((await test.call({ method: 'GET', url: '/api/me/', headers: authHeader(user.token) })).statusCode).toBe(
        401,
      );
      expect((await post('/api/get_user_info/', { username: user.username })).statusCode).toBe(404);
      expect((await test.call({ method: 'GET', url: pictureUrl })).statusCode).toBe(404);
      expect((await post('/api/login/', { username: user.username, password: PASSWORD })).statusCode).toBe(400);
    });
  });

  it('never writes a password, token or code to the request log', async () => {
    const user = await verifiedUser(test);
    await post('/api/reset-password/', { email: user.email });
    const resetToken = resetLinkIn(lastMailTo(user.email)!.text).split('/').at(-1)!;
    await test.call({ method: 'GET', url: `/new-password/${resetToken}` });
    // Only the log's text fields can carry a secret: numbers (times, pids, durations) may hold any six digits.
    const requestLogText = test.logs
      .filter((line) => line.startsWith('{'))
      .flatMap((line) => textFieldsOf(JSON.parse(line)))
      .join('\n');
    expect(requestLogText).toContain('/api/login/');
    for (const secret of [PASSWORD, user.token, resetToken]) expect(requestLogText).not.toContain(secret);
    for (const mail of test.outbox().filter((message) => message.text.includes('verification code'))) {
      expect(requestLogText).not.toContain(codeIn(mail.text));
    }
  });
});

function textFieldsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (value && typeof value === 'object') return Object.values(value).flatMap(textFieldsOf);
  return [];
}
