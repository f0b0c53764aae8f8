import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SMTPServer } from 'smtp-server';
import { codeIn, messageText, recipientOf } from './support/outbox.ts';
import { authHeader, newUserPayload, PASSWORD, startTestApp, type TestApp } from './support/test-app.ts';

/** A real SMTP exchange: the app sends through SMTP_URL to an SMTP server started here. */
describe('e-mail through SMTP', () => {
  const received: { from: string; to: string[]; raw: string }[] = [];
  let smtp: SMTPServer;
  let test: TestApp;

  beforeAll(async () => {
    smtp = new SMTPServer({
      authMethods: ['PLAIN', 'LOGIN'],
      disabledCommands: ['STARTTLS'],
      onAuth(auth, _session, callback) {
        if (auth.username === 'kinetrace' && auth.password === 'mail-secret') callback(null, { user: auth.username });
        else callback(new Error('Invalid username or password'));
      },
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          received.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((recipient) => recipient.address),
            raw: Buffer.concat(chunks).toString('utf8'),
          });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    const { port } = smtp.server.address() as AddressInfo;
    test = await startTestApp('pglite', {
      SMTP_URL: `smtp://kinetrace:mail-secret@127.0.0.1:${port}`,
      MAIL_FROM: 'Kinetrace <codes@lab.example.org>',
    });
  });

  afterAll(async () => {
    await test?.close();
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
  });

  it('delivers the login code over SMTP (not to the outbox), and the code verifies the login', async () => {
    const user = newUserPayload();
    await test.call({ method: 'POST', url: '/api/register/', payload: user });
    const login = await test.call({
      method: 'POST',
      url: '/api/login/',
      payload: { username: user.username, password: PASSWORD },
    });
    const { token } = login.json() as { token: string };

    expect(received).toHaveLength(1);
    expect(received[0].from).toBe('codes@lab.example.org');
    expect(received[0].to).toEqual([user.email]);
    expect(recipientOf(received[0].raw)).toContain(user.email);
    const code = codeIn(messageText(received[0].raw));
    expect(test.outbox()).toEqual([]);

    const verified = await test.call({
      method: 'POST',
      url: '/api/verify/',
      headers: authHeader(token),
      payload: { otp_token: code },
    });
    expect(verified.json()).toEqual({ otp_verified: true });
  });
});
