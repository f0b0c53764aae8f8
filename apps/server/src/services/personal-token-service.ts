import {
  messages,
  PERSONAL_TOKEN_TTL_MS,
  PERSONAL_TOKENS_MAX,
  type CreatePersonalTokenRequest,
  type CreatedPersonalToken,
  type PersonalToken,
} from '@kinetrace/contracts';
import { invalidFields, notFound } from '../http/http-errors.ts';
import type { AuthRepository, AuthTokenRow } from '../repositories/auth-repository.ts';
import type { AuthContext } from './auth-service.ts';
import { hashRandomToken, newRandomToken } from './secrets.ts';

/** Marks the secret as Kinetrace's, so that a secret scanner (or a person) can tell what a leaked string is. */
const TOKEN_PREFIX = 'ktp_';

function presentToken(row: AuthTokenRow): PersonalToken {
  return {
    id: row.id,
    name: row.name ?? '',
    access: row.readOnly ? 'read' : 'read_write',
    created_at: row.createdAt.toISOString(),
    expires_at: row.expiresAt.toISOString(),
  };
}

/**
 * Personal API tokens (issue 22): long-lived credentials for scripts, stored by hash like logins, shown once.
 * The caller is a browser login (requireBrowserLogin): a token never makes or revokes tokens.
 */
export function createPersonalTokenService(auth: AuthRepository, now: () => Date = () => new Date()) {
  return {
    async list(context: AuthContext): Promise<PersonalToken[]> {
      return (await auth.listPersonalTokens(context.user.id, now())).map(presentToken);
    },

    async create(context: AuthContext, request: CreatePersonalTokenRequest): Promise<CreatedPersonalToken> {
      const time = now();
      if ((await auth.listPersonalTokens(context.user.id, time)).length >= PERSONAL_TOKENS_MAX)
        throw invalidFields({ non_field_errors: [messages.personalTokensMax(PERSONAL_TOKENS_MAX)] });
      const token = TOKEN_PREFIX + newRandomToken();
      const row = await auth.insertPersonalToken(context.user.id, hashRandomToken(token), {
        name: request.name,
        readOnly: request.access === 'read',
        createdAt: time,
        expiresAt: new Date(time.getTime() + PERSONAL_TOKEN_TTL_MS),
      });
      return { ...presentToken(row), token };
    },

    async revoke(context: AuthContext, tokenId: number): Promise<void> {
      if (!(await auth.revokePersonalToken(context.user.id, tokenId, now())))
        throw notFound(messages.personalTokenNotFound);
    },
  };
}

export type PersonalTokenService = ReturnType<typeof createPersonalTokenService>;
