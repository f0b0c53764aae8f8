import {
  messages,
  OTP_MAX_WRONG_ATTEMPTS,
  OTP_TTL_MS,
  REMEMBER_DEVICE_MS,
  SESSION_DURATION_MS,
  type LoginRequest,
  type LoginResponse,
  type MeResponse,
  type VerifyResponse,
} from '@kinetrace/contracts';
import type { InstitutionalUse } from '@kinetrace/contracts';
import { invalidFields, tooManyRequests } from '../http/http-errors.ts';
import type { Mailer } from '../mail/mailer.ts';
import { verificationCodeMail } from '../mail/templates.ts';
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
  now?: () => Date;
}

export function createAuthService({
  users,
  auth,
  mailer,
  rateLimiter,
  providerName,
  now = () => new Date(),
}: AuthServiceDeps) {
  /** Refuses the try (429) while any of its keys must wait; failures are recorded by the caller. */
  function refuseWhileWaiting(keys: [string, RateRule | BackoffRule][]): void {
    const waitS = Math.max(...keys.map(([key, rule]) => rateLimiter.wait(key, rule)));
    if (waitS > 0) throw tooManyRequests(messages.tooManyAttempts(waitS), waitS);
  }

  function recordFailure(keys: [string, RateRule | BackoffRule][]): void {
    for (const [key] of keys) rateLimiter.record(key);
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
    if (challenge.wrongAttempts >= OTP_MAX_WRONG_ATTEMPTS) return messages.tooManyWrongCodes;
    if (!(await verifySlowHash(challenge.codeHash, code))) {
      const wrongAttempts = await auth.countWrongAttempt(challenge.id);
      return wrongAttempts >= OTP_MAX_WRONG_ATTEMPTS ? messages.tooManyWrongCodes : messages.invalidCode;
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
      refuseWhileWaiting(failureKeys);
      const passwordMatches = await verifySlowHash(user?.passwordHash ?? (await decoyPasswordHash()), input.password);
      if (!user || !passwordMatches) {
        recordFailure(failureKeys);
        throw invalidFields({ non_field_errors: [messages.invalidCredentials] });
      }
      rateLimiter.forget(failureKeys[0][0]);
      if (!remembered) throttleMail(rateLimiter, 'code', clientAddress, user.email);

      const token = newRandomToken();
      const row = await auth.insertToken(
        user.id,
        hashRandomToken(token),
        new Date(now().getTime() + SESSION_DURATION_MS),
        remembered,
      );
      if (!remembered) await sendNewCode(user, row);
      return {
        token,
        user_id: user.id,
        institutional_use: user.institutionalUse as InstitutionalUse | null,
        otp_challenge_sent: !remembered,
      };
    },

    /** The caller behind a bearer token, or null when the token is unknown, revoked or expired. */
    async authenticate(bearer: string): Promise<AuthContext | null> {
      return (await auth.findLiveToken(hashRandomToken(bearer), now())) ?? null;
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
      refuseWhileWaiting(failureKeys);
      const refusal = await checkCode(context, code);
      if (refusal) {
        recordFailure(failureKeys);
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
      throttleMail(rateLimiter, 'code', clientAddress, context.user.email, [
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
