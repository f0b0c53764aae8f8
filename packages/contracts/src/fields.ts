import { z } from 'zod';
import { PASSWORD_MIN_LENGTH } from './constants.ts';
import { COUNTRY_NAMES } from './countries.ts';
import { messages } from './messages.ts';

/** Field schemas shared by several requests; each carries the spec's message for the rule it checks. */

export const requiredText = (maxLength = 255) =>
  z
    .string({ error: messages.required })
    .trim()
    .min(1, messages.required)
    .max(maxLength, `At most ${maxLength} characters.`);

export const optionalText = (maxLength = 255) =>
  z.string().trim().max(maxLength, `At most ${maxLength} characters.`).optional().default('');

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

export const emailField = z
  .string({ error: messages.required })
  .trim()
  .min(1, messages.required)
  .pipe(z.email(messages.invalidEmail));

export const passwordField = z
  .string({ error: messages.required })
  .min(1, messages.required)
  .min(PASSWORD_MIN_LENGTH, messages.passwordTooShort(PASSWORD_MIN_LENGTH))
  .max(1024, 'At most 1024 characters.');

export const websiteField = z
  .string()
  .trim()
  .max(200, 'At most 200 characters.')
  .refine((value) => value === '' || URL.canParse(value.includes('://') ? value : `https://${value}`), 'Enter a valid URL.')
  .optional()
  .default('');

export const countryField = z
  .string({ error: messages.required })
  .refine((value) => COUNTRY_NAMES.includes(value), 'Choose a country from the list.');
