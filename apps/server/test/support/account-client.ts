import { REMEMBERED_DEVICE_HEADER } from '@kinetrace/contracts';
import { codeIn } from './outbox.ts';
import { authHeader, newUserPayload, PASSWORD, type TestApp } from './test-app.ts';

/** The account tests' calls: a POST (optionally from a client address), and the last e-mail sent to someone. */
export function accountClient(test: TestApp) {
  const post = (url: string, payload?: unknown, headers: Record<string, string> = {}, remoteAddress?: string) =>
    test.call({ method: 'POST', url, payload: payload as Record<string, unknown>, headers, remoteAddress });
  const lastMailTo = (email: string) =>
    test
      .outbox()
      .filter((mail) => mail.to.includes(email))
      .at(-1);
  return { post, lastMailTo };
}
export type AccountClient = ReturnType<typeof accountClient>;

/**
 * Registers a user, logs in (from `remoteAddress`) and enters the e-mailed code asking to remember the
 * device: the user, and the header a later login sends from that device.
 */
export async function userOnRememberedDevice(test: TestApp, remoteAddress?: string) {
  const { post, lastMailTo } = accountClient(test);
  const user = newUserPayload();
  await post('/api/register/', user);
  const login = await post('/api/login/', { username: user.username, password: PASSWORD }, {}, remoteAddress);
  const verified = await post(
    '/api/verify/',
    { otp_token: codeIn(lastMailTo(user.email)!.text), remember_device: true },
    authHeader((login.json() as { token: string }).token),
  );
  const device = {
    [REMEMBERED_DEVICE_HEADER]: (verified.json() as { remembered_device_token: string }).remembered_device_token,
  };
  return { user, device };
}
