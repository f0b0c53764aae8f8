import { messages } from '@kinetrace/contracts';
import { tooManyRequests } from '../http/http-errors.ts';
import type { RateLimiter, RateRule } from './rate-limiter.ts';

const FIFTEEN_MINUTES = 15 * 60_000;
const ONE_HOUR = 60 * 60_000;

/**
 * How many e-mails of each kind one client address may make the server send, and how many one
 * recipient may receive, whichever is reached first: so that the server cannot be used to mail many
 * people from one address (a spam relay, and the mail provider's bill) nor one person from many.
 *
 * - `reset`: password-reset links, which anyone may ask for any address. The recipient is counted by
 *   the address asked for, whether or not an account has it, so the answers cannot tell which do.
 * - `register`: registrations, each counted against its client address and the e-mail address it
 *   names; a registration naming an address that has an account mails its owner (account-service.ts),
 *   so the recipient is counted whether or not an account has it, like `reset`'s.
 * - `unlock`: links that let an account's owner through the login limits, asked for by username; the
 *   recipient is counted by the account name asked for, whether or not there is such an account.
 * - `code`: the second-factor codes, sent at each login without a remembered device and on "send a
 *   new code". Only someone who knows an account's password (or holds its login) makes one, so no
 *   stranger can use up an owner's allowance; the address limit leaves room for a lab behind one
 *   address logging in (two mails per login: the web client asks for a fresh code on the Verify screen).
 */
export const mailRateRules = {
  reset: {
    perClientAddress: { limit: 10, windowMs: ONE_HOUR },
    perRecipient: { limit: 3, windowMs: ONE_HOUR },
  },
  register: {
    perClientAddress: { limit: 20, windowMs: ONE_HOUR },
    perRecipient: { limit: 3, windowMs: ONE_HOUR },
  },
  unlock: {
    perClientAddress: { limit: 10, windowMs: ONE_HOUR },
    perRecipient: { limit: 3, windowMs: ONE_HOUR },
  },
  code: {
    perClientAddress: { limit: 60, windowMs: ONE_HOUR },
    perRecipient: { limit: 20, windowMs: ONE_HOUR },
    /** "Send a new code" presses, per account: a burst limit within the recipient's hourly one. */
    resendsPerAccount: { limit: 5, windowMs: FIFTEEN_MINUTES },
  },
} satisfies Record<string, { perClientAddress: RateRule; perRecipient: RateRule; [other: string]: RateRule }>;

export type MailKind = keyof typeof mailRateRules;

/**
 * Counts one mail of `kind` from `clientAddress` to `recipient` (and under `moreKeys`), or, when any of
 * them has reached its limit, counts nothing and refuses with 429 and how long to wait.
 */
export async function throttleMail(
  rateLimiter: RateLimiter,
  kind: MailKind,
  clientAddress: string,
  recipient: string,
  moreKeys: [string, RateRule][] = [],
): Promise<void> {
  const rules = mailRateRules[kind];
  const waitS = await rateLimiter.hitAll([
    [`mail:${kind}:from:${clientAddress}`, rules.perClientAddress],
    [`mail:${kind}:to:${recipient.trim().toLowerCase()}`, rules.perRecipient],
    ...moreKeys,
  ]);
  if (waitS > 0) throw tooManyRequests(messages.tooManyAttempts(waitS), waitS);
}
