import { z } from 'zod';
import { PASSWORD_MIN_LENGTH } from './constants.ts';
import { COUNTRY_NAMES } from './countries.ts';
import { messages } from './messages.ts';

/**
 * Field schemas shared by several requests; each carries the spec's message for the rule it checks.
 * Wrong types and sizes are worded once, by the contracts' error map (error-map.ts).
 */

export const requiredText = (maxLength = 255) => z.string().trim().min(1, messages.required).max(maxLength);

export const optionalText = (maxLength = 255) => z.string().trim().max(maxLength).optional().default('');

/** alpha_dash_custom: letters, digits, hyphen and underscore. */
export const ALPHA_DASH_PATTERN = /^[A-Za-z0-9_-]+$/;

/** A name made of letters, digits, hyphens and underscores (usernames, trial names). */
export const alphaDashName = (maxLength: number) =>
  requiredText(maxLength).superRefine((value, ctx) => {
    if (value === '') return; // already reported as required
    if (/\s/.test(value)) ctx.addIssue({ code: 'custom', message: messages.noSpaces });
    else if (!ALPHA_DASH_PATTERN.test(value)) ctx.addIssue({ code: 'custom', message: messages.alphaDashCustom });
  });

export const usernameField = alphaDashName(150);

/** RFC 5321 §4.5.3.1.3: a path (and so an address) is at most 256 octets, 254 without its angle brackets. */
export const emailField = z.string().trim().min(1, messages.required).max(254).pipe(z.email(messages.invalidEmail));

/** Longer than any passphrase a person types, short enough to keep the slow hash cheap to refuse. */
export const PASSWORD_MAX_LENGTH = 1024;

/** The password as typed at login: never trimmed, checked only for presence and size. */
export const loginPasswordField = z
  .string()
  .min(1, messages.required)
  .max(PASSWORD_MAX_LENGTH, messages.passwordTooLong(PASSWORD_MAX_LENGTH));

/**
 * A new password. It is kept exactly as typed (spaces are allowed anywhere, NIST SP 800-63B §5.1.1.2),
 * but spaces at either end do not count towards the minimum length, and spaces alone are no password.
 */
export const passwordField = loginPasswordField.superRefine((value, ctx) => {
  if (value === '') return; // already reported as required
  const meaningful = value.trim();
  if (meaningful === '') ctx.addIssue({ code: 'custom', message: messages.passwordOnlySpaces });
  else if (meaningful.length < PASSWORD_MIN_LENGTH)
    ctx.addIssue({ code: 'custom', message: messages.passwordTooShort(PASSWORD_MIN_LENGTH) });
});

/**
 * A personal website: an http(s) address, with or without its scheme ("lab.example.org/gait"). Any other
 * scheme is refused (javascript:, data:, vbscript: … would run or show content when another API client
 * makes a link of it), and so is a host with a port but no scheme, which a browser reads as a scheme.
 */
export const websiteField = z
  .string()
  .trim()
  .max(200)
  .refine((value) => value === '' || isWebAddress(value), messages.websiteNotWeb)
  .optional()
  .default('');

/** Whether `value` is an http(s) address (the website rule; also applied to websites stored before it). */
export function isWebAddress(value: string): boolean {
  // RFC 3986 §3.1: whatever comes before the first ':' that precedes any '/', '?' or '#' is a scheme.
  const hasScheme = /^[^/?#]*:/.test(value);
  try {
    const url = new URL(hasScheme ? value : `https://${value}`);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

export const countryField = z.string().refine((value) => COUNTRY_NAMES.includes(value), messages.chooseCountry);

/**
 * A number from a form's number input or from JSON: an emptied input ('') counts as missing. Give it
 * `z.number(wrongTypeError(...))` so that a value that is not a number (true, [1.7], "70", null) is
 * refused with the field's own message, never converted.
 */
export const fromNumberInput = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (value === '' ? undefined : value), schema);

/**
 * A number sent as text (a query string, tus metadata, a multipart field) or as a JSON number: text in
 * decimal notation is the number it spells; anything else (true, [1.7], null, '', "1e3") is refused.
 */
export const fromNumberText = <T extends z.ZodType>(schema: T) =>
  z.preprocess(
    (value) => (typeof value === 'string' && /^-?\d{1,15}(\.\d{1,15})?$/.test(value) ? Number(value) : value),
    schema,
  );
