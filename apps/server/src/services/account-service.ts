import { randomBytes } from 'node:crypto';
import { fileTypeFromBuffer } from 'file-type';
import { imageSize } from 'image-size';
import {
  isWebAddress,
  messages,
  PASSWORD_RESET_TTL_MS,
  PROFILE_PICTURE_MAX_BYTES,
  PROFILE_PICTURE_MAX_PIXELS,
  type InstitutionalUse,
  type MessageResponse,
  type NewPasswordRequest,
  type RegisterResponse,
  type UserProfile,
} from '@kinetrace/contracts';
import type { registerRequestSchema, updateProfileRequestSchema } from '@kinetrace/contracts';
import type { z } from 'zod';
import { badRequest, forbidden, invalidFields, notFound } from '../http/http-errors.ts';
import type { Mailer } from '../mail/mailer.ts';
import { passwordResetMail, registrationAttemptMail } from '../mail/templates.ts';
import type { AuthRepository } from '../repositories/auth-repository.ts';
import type { UserRow, UsersRepository } from '../repositories/users-repository.ts';
import type { FileStore } from '../storage/file-store.ts';
import type { AuthContext } from './auth-service.ts';
import { throttleMail } from './mail-throttle.ts';
import type { RateLimiter } from './rate-limiter.ts';
import type { Removal } from './removal.ts';
import { hashRandomToken, newRandomToken, slowHash } from './secrets.ts';
import { userFilesPrefix } from './storage-keys.ts';

type RegisterInput = z.output<typeof registerRequestSchema>;
type ProfileInput = z.output<typeof updateProfileRequestSchema>;

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
    // A website stored before only http(s) addresses were taken is not handed to other clients as a link.
    const website = isWebAddress(user.website) ? user.website : '';
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
      website,
      personalWebsite: website,
      profile_picture: profilePictureUrl(user),
      ...(isOwner
        ? { newsletter: user.newsletter, institutional_use: user.institutionalUse as InstitutionalUse | null }
        : {}),
    };
  }

  return {
    profilePictureUrl,

    /**
     * Answers the same whether or not an account has the e-mail address, so it cannot be used to find
     * accounts: when one has, no account is made and its owner is told by e-mail instead (that mail is
     * counted against the address like any other registration's, see mail-throttle.ts). A taken username
     * is said, as usernames are public (profile pages).
     */
    async register(input: RegisterInput, clientAddress: string): Promise<RegisterResponse> {
      await throttleMail(rateLimiter, 'register', clientAddress, input.email);
      await assertUnique({ username: input.username });
      // Hashed either way, so that the answer takes as long with a known address as with a new one.
      const passwordHash = await slowHash(input.password);
      const created = await users.insertUnlessTaken({
        username: input.username,
        passwordHash,
        ...profileColumns(input),
      });
      if (!created) {
        // Taken meanwhile: the username by a registration at the same moment (said), else the address.
        await assertUnique({ username: input.username });
        const owner = await users.findByEmail(input.email);
        if (owner) await mailer.send(registrationAttemptMail(owner.email, providerName, owner.username, publicUrl));
      }
      return { username: input.username, message: messages.userCreated };
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

    /** Stores a new picture after checking its bytes (not its name or declared type) are an image of at most PROFILE_PICTURE_MAX_PIXELS. */
    async updateProfilePicture(context: AuthContext, username: string, content: Buffer): Promise<UserProfile> {
      if (username.toLowerCase() !== context.user.username.toLowerCase()) throw forbidden(messages.notFound);
      if (content.length > PROFILE_PICTURE_MAX_BYTES) throw pictureTooLargeError();
      const type = await fileTypeFromBuffer(content);
      if (!type || !PICTURE_TYPES.has(type.mime)) throw invalidFields({ profile_picture: [messages.pictureNotImage] });
      if (pixelsOf(content) > PROFILE_PICTURE_MAX_PIXELS)
        throw invalidFields({
          profile_picture: [messages.pictureTooManyPixels(PROFILE_PICTURE_MAX_PIXELS / 1_000_000)],
        });

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
      await throttleMail(rateLimiter, 'reset', clientAddress, email);
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

/** The pixels an image's header says it has (read without decoding it); a header that cannot be read is not an image. */
function pixelsOf(content: Buffer): number {
  let size: { width: number; height: number };
  try {
    size = imageSize(content);
  } catch {
    throw invalidFields({ profile_picture: [messages.pictureNotImage] });
  }
  if (!(size.width > 0 && size.height > 0)) throw invalidFields({ profile_picture: [messages.pictureNotImage] });
  return size.width * size.height;
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
