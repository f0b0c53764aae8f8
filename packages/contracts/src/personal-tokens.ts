import { z } from 'zod';
import { requiredText } from './fields.ts';

/**
 * Personal API tokens (issue 22): a script's credential, since a script cannot answer the e-mailed code.
 * Made and revoked on the Profile page by a browser login; sent as "Authorization: Token <t>", as OpenCap's
 * Python client sends its token. 'read' may call only the routes that read; 'read_write' what the owner may.
 */
export const PERSONAL_TOKEN_ACCESS = ['read', 'read_write'] as const;
export const personalTokenAccessSchema = z.enum(PERSONAL_TOKEN_ACCESS);
export type PersonalTokenAccess = z.infer<typeof personalTokenAccessSchema>;

export const createPersonalTokenRequestSchema = z.object({
  name: requiredText(100),
  access: personalTokenAccessSchema,
});
export type CreatePersonalTokenRequest = z.input<typeof createPersonalTokenRequestSchema>;

/** A token as its owner's list shows it: never the secret, which only the answer that made it holds. */
export const personalTokenSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  access: personalTokenAccessSchema,
  /** ISO 8601. */
  created_at: z.string(),
  expires_at: z.string(),
});
export type PersonalToken = z.infer<typeof personalTokenSchema>;

/** The answer that made a token: the only time its secret is shown. */
export const createdPersonalTokenSchema = personalTokenSchema.extend({ token: z.string() });
export type CreatedPersonalToken = z.infer<typeof createdPersonalTokenSchema>;
