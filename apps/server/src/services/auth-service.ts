import {
  LOGIN_ABSOLUTE_LIMIT_MS,
  LOGIN_SLIDE_STEP_MS,
  messages,
  OTP_MAX_WRONG_ATTEMPTS,
  OTP_TTL_MS,
  REMEMBER_DEVICE_MS,
  SESSION_DURATION_MS,
  UNLOCK_LINK_TTL_MS,
  type LoginRequest,
  type LoginResponse,
  type MeResponse,
  type MessageResponse,
  type UnlockLoginResponse,
  type VerifyResponse,
} from '@kinetrace/contracts';
import type { InstitutionalUse } from '@kinetrace/contracts';
import { badRequest, invalidFields, tooManyRequests } from '../http/http-errors.ts';
import type { Mailer } from '../mail/mailer.ts';
import { unlockLinkMail, verificationCodeMail } from '../mail/templates.ts';
import type { AuthRepository, AuthTokenRow } from '../repositories/auth-repository.ts';
import type { UserRow, UsersRepository } from '../repositories/users-repository.ts';
import { mailRateRules, throttleMail } from './mail-throttle.ts';
import type { BackoffRule, RateLimiter, RateRule } from './rate-limiter.ts';
import { decoyPasswordHash, hashRandomToken, newOtpCode, newRandomToken, slowHash, verifySlowHash } from './secrets.ts';

/** Who is calling: the user and the login (token) they call with. */
export interface AuthContext {
  user: UserRow;
  token: AuthTokenRow;
}

const FIFTEEN_MINUTES = 15 * 60_000;
const ONE_HOUR = 60 * 60_000;
/**
 * Guessing limits. Wrong passwords slow down the pair of account and client address with growing
 * delays (OWASP Authentication Cheat Sheet, "Login Throttling"), so a stranger elsewhere cannot lock the
 * owner out and one guesser behind a lab's shared address does not block the others. Only failures
 * count. Two wider nets catch guessing spread over many addresses or many accounts; they hold back
 * clients the account does not know, never a device the owner had remembered (OWASP "Slow Down Online
 * Guessing Attacks with Device Cookies"), which has its own growing delays.
 */
export const authRateRules = {
  loginFailuresPerAccountAndAddress: {
    freeFailures: 5,
    firstDelayMs: 1000,
    maxDelayMs: FIFTEEN_MINUTES,
    windowMs: 24 * ONE_HOUR,
  },
  loginFailuresPerRememberedDevice: {
    freeFailures: 5,
    firstDelayMs: 1000,
    maxDelayMs: FIFTEEN_MINUTES,
    windowMs: 24 * ONE_HOUR,
  },
  loginFailuresPerAccount: { limit: 100, windowMs: ONE_HOUR },
  loginFailuresPerAddress: { limit: 100, windowMs: FIFTEEN_MINUTES },
  wrongCodesPerAccount: { limit: 10, windowMs: FIFTEEN_MINUTES },
  wrongCodesPerAddress: { limit: 30, windowMs: FIFTEEN_MINUTES },
} satisfies Record<string, RateRule | BackoffRule>;

export interface AuthServiceDeps {
  users: UsersRepository;
  auth: AuthRepository;
  mailer: Mailer;
  rateLimiter: RateLimiter;
  providerName: string;
  /** E-mailed links start with it (never with anything a request says about itself). */
  publicUrl: string;
  now?: () => Date;
}

export function createAuthService({
  users,
  auth,
  mailer,
  rateLimiter,
  providerName,
  publicUrl,
  now = () => new Date(),
}: AuthServiceDeps) {
  /** Refuses the try (429) while any of its keys must wait; failures are recorded by the caller. */
  async function refuseWhileWaiting(keys: [string, RateRule | BackoffRule][]): Promise<void> {
    const waitS = await rateLimiter.wait(keys);
    if (waitS > 0) throw tooManyRequests(messages.tooManyAttempts(waitS), waitS);
  }

  async function recordFailure(keys: [string, RateRule | BackoffRule][]): Promise<void> {
    await rateLimiter.record(keys.map(([key]) => key));
  }

  async function sendNewCode(user: UserRow, token: AuthTokenRow): Promise<void> {
    const code = newOtpCode();
    const time = now();
    await auth.replaceChallenge(token.id, await slowHash(code), new Date(time.getTime() + OTP_TTL_MS), time);
    await mailer.send(verificationCodeMail(user.email, providerName, code));
  }

  async function isRemembered(userId: number, deviceToken: string | undefined): Promise<boolean> {
    return !!deviceToken && auth.isDeviceRemembered(userId, hashRandomToken(deviceToken), now());
  }

  /** Uses the login's open code when `code` is it; otherwise answers why not. */
  async function checkCode(context: AuthContext, code: string): Promise<string | undefined> {
    const challenge = await auth.findOpenChallenge(context.token.id);
    if (!challenge || challenge.expiresAt <= now()) return messages.codeExpired;
    // Counted before the slow comparison, never after it: otherwise every guess sent at once is compared.
    const tryNumber = await auth.countTry(challenge.id, OTP_MAX_WRONG_ATTEMPTS);
    if (tryNumber === undefined) return messages.tooManyWrongCodes;
    if (!(await verifySlowHash(challenge.codeHash, code))) {
      return tryNumber >= OTP_MAX_WRONG_ATTEMPTS ? messages.tooManyWrongCodes : messages.invalidCode;
    }
    if (!(await auth.consumeChallenge(challenge.id, now()))) return messages.codeExpired;
    return undefined;
  }

  return {
    async login(input: LoginRequest, clientAddress: string, deviceToken?: string): Promise<LoginResponse> {
      const account = input.username.toLowerCase();
      const user = await users.findByUsername(input.username);
      const remembered = !!user && (await isRemembered(user.id, deviceToken));
      const failureKeys: [string, RateRule | BackoffRule][] = remembered
        ? [[`login:device:${hashRandomToken(deviceToken!)}`, authRateRules.loginFailuresPerRememberedDevice]]
        : [
            [`login:pair:${account}:${clientAddress}`, authRateRules.loginFailuresPerAccountAndAddress],
            [`login:account:${account}`, authRateRules.loginFailuresPerAccount],
            [`login:address:${clientAddress}`, authRateRules.loginFailuresPerAddress],
          ];
      await refuseWhileWaiting(failureKeys);
      const passwordMatches = await verifySlowHash(user?.passwordHash ?? (await decoyPasswordHash()), input.password);
      if (!user || !passwordMatches) {
        await recordFailure(failureKeys);
        throw invalidFields({ non_field_errors: [messages.invalidCredentials] });
      }
      await rateLimiter.forget(failureKeys[0][0]);
      if (!remembered) await throttleMail(rateLimiter, 'code', clientAddress, user.email);

      const token = newRandomToken();
      const createdAt = now();
      const row = await auth.insertToken({
        userId: user.id,
        tokenHash: hashRandomToken(token),
        createdAt,
        expiresAt: new Date(createdAt.getTime() + SESSION_DURATION_MS),
        verified: remembered,
      });
      if (!remembered) await sendNewCode(user, row);
      return {
        token,
        user_id: user.id,
        institutional_use: user.institutionalUse as InstitutionalUse | null,
        otp_challenge_sent: !remembered,
      };
    },

    /**
     * The owner's way through the account-wide limits (many wrong passwords from many addresses hold back
     * every browser the account does not know): a link, mailed to the account's address, that makes the
     * browser opening it a remembered device. Answers the same whether or not the account exists.
     */
    async sendUnlockLink(username: string, clientAddress: string): Promise<MessageResponse> {
      await throttleMail(rateLimiter, 'unlock', clientAddress, `account:${username}`);
      const user = await users.findByUsername(username);
      if (user) {
        const token = newRandomToken();
        await auth.insertUnlockLink(user.id, hashRandomToken(token), new Date(now().getTime() + UNLOCK_LINK_TTL_MS));
        await mailer.send(
          unlockLinkMail(user.email, providerName, user.username, `${publicUrl}/unlock-login/${token}`),
        );
      }
      return { message: messages.unlockLinkSent };
    },

    /**
     * Opens an unlock link (once): the browser is remembered for the account, as if its owner had entered
     * an e-mailed code asking to remember it, which the link proves as well.
     */
    async unlockLogin(token: string): Promise<UnlockLoginResponse> {
      const userId = await auth.consumeUnlockLink(hashRandomToken(token), now());
      const user = userId === undefined ? undefined : await users.findById(userId);
      if (!user) throw badRequest(messages.invalidUnlockLink);
      const deviceToken = newRandomToken();
      await auth.insertRememberedDevice(
        user.id,
        hashRandomToken(deviceToken),
        new Date(now().getTime() + REMEMBER_DEVICE_MS),
      );
      return { username: user.username, remembered_device_token: deviceToken };
    },

    /**
     * The caller behind a bearer token, or null when the token is unknown, revoked or expired. A verified login
     * in use stays alive: its expiry moves to 12 hours after this call (§9, as the web app's timer does), at most
     * once a minute, and never past 30 days after the login (LOGIN_ABSOLUTE_LIMIT_MS). A login waiting for its
     * code never moves: it ends 12 hours after the password was given.
     */
    async authenticate(bearer: string): Promise<AuthContext | null> {
      const time = now();
      const context = await auth.findLiveToken(hashRandomToken(bearer), time);
      if (!context) return null;
      const { token } = context;
      const slid = new Date(
        Math.min(time.getTime() + SESSION_DURATION_MS, token.createdAt.getTime() + LOGIN_ABSOLUTE_LIMIT_MS),
      );
      if (!token.verified || slid.getTime() - token.expiresAt.getTime() < LOGIN_SLIDE_STEP_MS) return context;
      const expiresAt = await auth.extendToken(token.id, slid);
      return expiresAt ? { ...context, token: { ...token, expiresAt } } : null;
    },

    async verify(
      context: AuthContext,
      code: string,
      rememberDevice: boolean,
      clientAddress: string,
    ): Promise<VerifyResponse> {
      const failureKeys: [string, RateRule][] = [
        [`verify:account:${context.user.id}`, authRateRules.wrongCodesPerAccount],
        [`verify:address:${clientAddress}`, authRateRules.wrongCodesPerAddress],
      ];
      await refuseWhileWaiting(failureKeys);
      const refusal = await checkCode(context, code);
      if (refusal) {
        await recordFailure(failureKeys);
        throw invalidFields({ otp_token: [refusal] });
      }
      await auth.markTokenVerified(context.token.id);

      if (!rememberDevice) return { otp_verified: true };
      const deviceToken = newRandomToken();
      await auth.insertRememberedDevice(
        context.user.id,
        hashRandomToken(deviceToken),
        new Date(now().getTime() + REMEMBER_DEVICE_MS),
      );
      return { otp_verified: true, remembered_device_token: deviceToken };
    },

    /** A remembered device passes the second factor for this login without a code. */
    async checkOtpVerified(context: AuthContext, deviceToken: string | undefined): Promise<boolean> {
      if (context.token.verified) return true;
      if (!(await isRemembered(context.user.id, deviceToken))) return false;
      await auth.markTokenVerified(context.token.id);
      return true;
    },

    async resendCode(context: AuthContext, clientAddress: string): Promise<void> {
      await throttleMail(rateLimiter, 'code', clientAddress, context.user.email, [
        [`code-mail:account:${context.user.id}`, mailRateRules.code.resendsPerAccount],
      ]);
      await sendNewCode(context.user, context.token);
    },

    async logout(context: AuthContext): Promise<void> {
      await auth.revokeToken(context.token.id, now());
    },

    describe(context: AuthContext, profilePictureUrl: string | null): MeResponse {
      return {
        user_id: context.user.id,
        username: context.user.username,
        verified: context.token.verified,
        institutional_use: context.user.institutionalUse as InstitutionalUse | null,
        profile_picture: profilePictureUrl,
        expires_at: context.token.expiresAt.toISOString(),
      };
    },
  };
}

export type AuthService = ReturnType<typeof createAuthService>;
