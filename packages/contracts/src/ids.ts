import { z } from 'zod';

/**
 * Ids and counts as the API accepts them, range-checked at the edge so that a value the database
 * cannot hold is answered as "no such thing" (a path) or a field error (a query or body), never
 * reaches a query and fails there.
 */

/** The largest value of PostgreSQL's `integer` (int4), the type of serial ids (users, subjects). */
export const INT4_MAX = 2_147_483_647;

export const idMessages = {
  invalidId: 'Choose an existing item.',
  notAWholeNumber: 'Enter a whole number.',
  numberTooLarge: (max: number) => `Enter a number up to ${max}.`,
  numberTooSmall: (min: number) => `Enter a number of at least ${min}.`,
} as const;

/** Digits sent in a path or a query string are the number they spell; anything else is left for the check to refuse. */
const digitsToNumber = (value: unknown) =>
  typeof value === 'string' && /^-?\d{1,15}$/.test(value) ? Number(value) : value;

/**
 * A whole number within [min, max], from JSON or from the digits of a path or query string.
 * Booleans, arrays, decimals and numbers in other notations are refused, not coerced.
 */
export const wholeNumber = (min: number, max: number) =>
  z.preprocess(
    digitsToNumber,
    z
      .number({ error: idMessages.notAWholeNumber })
      .int(idMessages.notAWholeNumber)
      .min(min, idMessages.numberTooSmall(min))
      .max(max, idMessages.numberTooLarge(max)),
  );

/** A serial id (subjects, users): a positive int4. */
export const serialId = z.preprocess(
  digitsToNumber,
  z
    .number({ error: idMessages.invalidId })
    .int(idMessages.invalidId)
    .min(1, idMessages.invalidId)
    .max(INT4_MAX, idMessages.invalidId),
);

/** A uuid id (sessions, trials, tasks). */
export const uuidId = z.string({ error: idMessages.invalidId }).uuid(idMessages.invalidId);

/** Path parameters naming one row; a value that cannot be an id is answered 404 by the server. */
export const serialIdParams = z.object({ id: serialId });
export const uuidIdParams = z.object({ id: uuidId });

/** A subject's share token, as a query parameter of every read a share link may make (spec §6). */
export const shareToken = z.string().max(200);
export const shareTokenQuerySchema = z.object({ share_token: shareToken.optional() });
