import { randomBytes } from 'node:crypto';
import { fileTypeFromBuffer } from 'file-type';
import {
  messages,
  PASSWORD_RESET_TTL_MS,
  PROFILE_PICTURE_MAX_BYTES,
  type InstitutionalUse,
  type MessageResponse,
  type NewPasswordRequest,
  type UserProfile,
} from '@kinetrace/contracts';
import type { registerRequestSchema, updateProfileRequestSchema } from '@kinetrace/contracts';
import type { z } from 'zod';
import { badRequest, forbidden, invalidFields, notFound, tooManyRequests } from '../http/http-errors.ts';
import type { Mailer } from '../mail/mailer.ts';
import { passwordResetMail } from '../mail/templates.ts';
import type { AuthRepository } from '../repositories/auth-repository.ts';
import type { UserRow, UsersRepository } from '../repositories/users-repository.ts';
import type { FileStore } from '../storage/file-store.ts';
import type { AuthContext } from './auth-service.ts';
import { throttleMail } from './mail-throttle.ts';
import type { RateLimiter, RateRule } from './rate-limiter.ts';
import type { Removal } from './removal.ts';
import { hashRandomToken, newRandomToken, slowHash } from './secrets.ts';
import { userFilesPrefix } from './storage-keys.ts';

type RegisterInput = z.output<typeof registerRequestSchema>;
type ProfileInput = z.output<typeof updateProfileRequestSchema>;

const ONE_HOUR = 60 * 60_000;
/** Registrations per client address; the mails an account gets are limited in mail-throttle.ts. */
export const accountRateRules = {
  registrationsPerAddress: { limit: 20, windowMs: ONE_HOUR },
} satisfies Record<string, RateRule>;

/** Image types a browser shows in an <img>; anything else (including SVG, which can carry scripts) is refused. */
const PICTURE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp', 'image/avif', 'image/bmp']);

export interface AccountServiceDeps {
  users: UsersRepository;
  auth: AuthRepository;
  files: FileStore;
  removal: Removal;
  mailer: Mailer;
  rateLimiter: RateLimiter;
  providerName: string;
  publicUrl: string;
  now?: () => Date;
}

export function createAccountService(deps: AccountServiceDeps) {
  const { users, auth, files, removal, mailer, rateLimiter, providerName, publicUrl, now = () => new Date() } = deps;

  function throttle(key: string, rule: RateRule): void {
    const waitS = rateLimiter.hit(key, rule);
    if (waitS > 0) throw tooManyRequests(messages.tooManyAttempts(waitS), waitS);
  }

  async function assertUnique(fields: { username?: string; email?: string }, exceptUserId?: number): Promise<void> {
    const errors: Record<string, string[]> = {};
    if (fields.username) {
      const existing = await users.findByUsername(fields.username);
      if (existing && existing.id !== exceptUserId) errors.username = [messages.usernameTaken];
    }
    if (fields.email) {
      const existing = await users.findByEmail(fields.email);
      if (existing && existing.id !== exceptUserId) errors.email = [messages.emailTaken];
    }
    if (Object.keys(errors).length > 0) throw invalidFields(errors);
  }

  function profileOf(user: UserRow, viewer: UserRow | undefined): UserProfile {
    const isOwner = viewer?.id === user.id;
    return {
      id: user.id,
      username: user.username,
      first_name: user.firstName,
      last_name: user.lastName,
      email: user.email,
      country: user.country,
      institution: user.institution,
      profession: user.profession,
      reason: user.reason,
      website: user.website,
      personalWebsite: user.website,
      profile_picture: profilePictureUrl(user),
      ...(isOwner
        ? { newsletter: user.newsletter, institutional_use: user.institutionalUse as InstitutionalUse | null }
        : {}),
    };
  }

  return {
    profilePictureUrl,

    async register(input: RegisterInput, clientAddress: string) {
      throttle(`register:address:${clientAddress}`, accountRateRules.registrationsPerAddress);
      await assertUnique({ username: input.username, email: input.email });
      const user = await users.insert({
        username: input.username,
        passwordHash: await slowHash(input.password),
        ...profileColumns(input),
      });
      return { id: user.id, username: user.username, message: messages.userCreated };
    },

    async getUserInfo(username: string, viewer: UserRow | undefined): Promise<UserProfile> {
      const user = await users.findByUsername(username);
      if (!user) throw notFound(messages.userDoesNotExist(username));
      return profileOf(user, viewer);
    },

    async updateProfile(context: AuthContext, input: ProfileInput): Promise<UserProfile> {
      await assertUnique({ email: input.email }, context.user.id);
      const user = await users.update(context.user.id, profileColumns(input));
      return profileOf(user, user);
    },

    /** Stores a new picture after checking its bytes (not its name or declared type) are an image. */
    async updateProfilePicture(context: AuthContext, username: string, content: Buffer): Promise<UserProfile> {
      if (username.toLowerCase() !== context.user.username.toLowerCase()) throw forbidden(messages.notFound);
      if (content.length > PROFILE_PICTURE_MAX_BYTES) throw pictureTooLargeError();
      const type = await fileTypeFromBuffer(content);
      if (!type || !PICTURE_TYPES.has(type.mime)) throw invalidFields({ profile_picture: [messages.pictureNotImage] });

      const key = `${userFilesPrefix(context.user.id)}/profile-picture/${randomBytes(8).toString('hex')}.${type.ext}`;
      await files.put(key, content);
      const previousKey = context.user.profilePictureKey;
      const user = await users.update(context.user.id, { profilePictureKey: key });
      if (previousKey) await files.remove(previousKey);
      return profileOf(user, user);
    },

    /**
     * Answers the same whether or not the address is known, so it cannot be used to find accounts: the
     * mail limits (per client address and per address asked for) count unknown addresses too. The link
     * starts with the configured public URL only: never with anything the request says about itself (its
     * Host header or the page origin it sends), which a stranger could point at their own site.
     */
    async requestPasswordReset(email: string, clientAddress: string): Promise<MessageResponse> {
      throttleMail(rateLimiter, 'reset', clientAddress, email);
      const user = await users.findByEmail(email);
      if (user) {
        const token = newRandomToken();
        await auth.insertPasswordReset(
          user.id,
          hashRandomToken(token),
          new Date(now().getTime() + PASSWORD_RESET_TTL_MS),
        );
        await mailer.send(passwordResetMail(user.email, providerName, `${publicUrl}/new-password/${token}`));
      }
      return { message: messages.passwordRecoveryEmailSent };
    },

    /** Sets the password from a reset link (once), ends every login of the account and forgets its remembered devices. */
    async setNewPassword(input: NewPasswordRequest): Promise<MessageResponse> {
      const time = now();
      const userId = await auth.consumePasswordReset(hashRandomToken(input.token), time);
      if (userId === undefined) throw badRequest(messages.invalidResetLink);
      await users.update(userId, { passwordHash: await slowHash(input.password) });
      await auth.endEverySignIn(userId, time);
      return { message: messages.passwordChanged };
    },

    async setInstitutionalUse(context: AuthContext, use: InstitutionalUse): Promise<MessageResponse> {
      await users.update(context.user.id, { institutionalUse: use });
      return { message: messages.saved };
    },

    /** Removes the user's every row (by cascade) and every file. */
    async deleteAccount(context: AuthContext, confirm: string): Promise<MessageResponse> {
      if (confirm !== context.user.username) throw invalidFields({ confirm: [messages.deleteConfirmMismatch] });
      await removal.user(context.user.id);
      return { message: messages.accountDeleted };
    },
  };
}

/** The profile fields a user edits, as database columns (registration and profile edits alike). */
function profileColumns(input: ProfileInput) {
  return {
    firstName: input.first_name,
    lastName: input.last_name,
    email: input.email,
    country: input.country,
    institution: input.institution,
    profession: input.profession,
    reason: input.reason,
    website: input.website,
    newsletter: input.newsletter,
  };
}

export function pictureTooLargeError() {
  return invalidFields({ profile_picture: [messages.pictureTooLarge(PROFILE_PICTURE_MAX_BYTES / 1024 / 1024)] });
}

/** Profile pictures are public (profiles are, §6); the URL names the file so caches never show an old one. */
export function profilePictureUrl(user: Pick<UserRow, 'profilePictureKey'>): string | null {
  if (!user.profilePictureKey) return null;
  const [, userId, , fileName] = user.profilePictureKey.split('/');
  return `/api/media/profile-pictures/${userId}/${fileName}`;
}

export type AccountService = ReturnType<typeof createAccountService>;
