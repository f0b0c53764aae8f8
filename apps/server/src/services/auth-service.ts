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
import type { RateLimiter, RateRule } from './rate-limiter.ts';
import {
  decoyPasswordHash,
  hashRandomToken,
  newOtpCode,
  newRandomToken,
  slowHash,
  verifySlowHash,
} from './secrets.ts';

/** Who is calling: the user and the login (token) they call with. */
export interface AuthContext {
  user: UserRow;
  token: AuthTokenRow;
}

const FIFTEEN_MINUTES = 15 * 60_000;
/** Guessing limits per account and per client address (a shared lab address gets more room). */
export const authRateRules = {
  loginPerAccount: { limit: 10, windowMs: FIFTEEN_MINUTES },
  loginPerAddress: { limit: 30, windowMs: FIFTEEN_MINUTES },
  verifyPerAccount: { limit: 10, windowMs: FIFTEEN_MINUTES },
  verifyPerAddress: { limit: 30, windowMs: FIFTEEN_MINUTES },
  codeMailsPerAccount: { limit: 5, windowMs: FIFTEEN_MINUTES },
} satisfies Record<string, RateRule>;

export interface AuthServiceDeps {
  users: UsersRepository;
  auth: AuthRepository;
  mailer: Mailer;
  rateLimiter: RateLimiter;
  providerName: string;
  now?: () => Date;
}

export function createAuthService({ users, auth, mailer, rateLimiter, providerName, now = () => new Date() }: AuthServiceDeps) {
  function throttle(rules: [string, RateRule][]): void {
    for (const [key, rule] of rules) {
      const waitS = rateLimiter.hit(key, rule);
      if (waitS > 0) throw tooManyRequests(messages.tooManyAttempts, waitS);
    }
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

  return {
    async login(input: LoginRequest, clientAddress: string, deviceToken?: string): Promise<LoginResponse> {
      throttle([
        [`login:account:${input.username.toLowerCase()}`, authRateRules.loginPerAccount],
        [`login:address:${clientAddress}`, authRateRules.loginPerAddress],
      ]);
      const user = await users.findByUsername(input.username);
      const passwordMatches = await verifySlowHash(user?.passwordHash ?? (await decoyPasswordHash()), input.password);
      if (!user || !passwordMatches) throw invalidFields({ non_field_errors: [messages.invalidCredentials] });

      const token = newRandomToken();
      const remembered = await isRemembered(user.id, deviceToken);
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
      const token = await auth.findLiveToken(hashRandomToken(bearer), now());
      if (!token) return null;
      const user = await users.findById(token.userId);
      return user ? { user, token } : null;
    },

    async verify(context: AuthContext, code: string, rememberDevice: boolean, clientAddress: string): Promise<VerifyResponse> {
      throttle([
        [`verify:account:${context.user.id}`, authRateRules.verifyPerAccount],
        [`verify:address:${clientAddress}`, authRateRules.verifyPerAddress],
      ]);
      const challenge = await auth.findOpenChallenge(context.token.id);
      if (!challenge || challenge.expiresAt <= now()) throw invalidFields({ otp_token: [messages.codeExpired] });
      if (challenge.wrongAttempts >= OTP_MAX_WRONG_ATTEMPTS) throw invalidFields({ otp_token: [messages.tooManyWrongCodes] });
      if (!(await verifySlowHash(challenge.codeHash, code))) {
        const wrongAttempts = await auth.countWrongAttempt(challenge.id);
        throw invalidFields({
          otp_token: [wrongAttempts >= OTP_MAX_WRONG_ATTEMPTS ? messages.tooManyWrongCodes : messages.invalidCode],
        });
      }
      if (!(await auth.consumeChallenge(challenge.id, now()))) throw invalidFields({ otp_token: [messages.codeExpired] });
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

    async resendCode(context: AuthContext): Promise<void> {
      throttle([[`code-mail:account:${context.user.id}`, authRateRules.codeMailsPerAccount]]);
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
