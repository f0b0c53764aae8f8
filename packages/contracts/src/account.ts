import { z } from 'zod';
import { OTP_CODE_LENGTH } from './constants.ts';
import { DEFAULT_COUNTRY } from './countries.ts';
import {
  countryField,
  emailField,
  loginPasswordField,
  passwordField,
  requiredText,
  usernameField,
  websiteField,
} from './fields.ts';
import { institutionalUseSchema } from './institutional-use.ts';
import { messages } from './messages.ts';

/** §7 Account calls: request and response bodies. */

export const loginRequestSchema = z.object({
  username: requiredText(254),
  password: loginPasswordField,
});
export type LoginRequest = z.infer<typeof loginRequestSchema>;

export const loginResponseSchema = z.object({
  token: z.string(),
  user_id: z.number().int(),
  institutional_use: institutionalUseSchema.nullable(),
  otp_challenge_sent: z.boolean(),
});
export type LoginResponse = z.infer<typeof loginResponseSchema>;

export const verifyRequestSchema = z.object({
  otp_token: z
    .string()
    .trim()
    .min(1, messages.required)
    .regex(new RegExp(`^\\d{${OTP_CODE_LENGTH}}$`), messages.codeDigits(OTP_CODE_LENGTH)),
  remember_device: z.boolean().optional().default(false),
});
export type VerifyRequest = z.input<typeof verifyRequestSchema>;

export const verifyResponseSchema = z.object({
  otp_verified: z.literal(true),
  /** Present when remember_device was asked: the web keeps it and shows it to check-otp-verified. */
  remembered_device_token: z.string().optional(),
});
export type VerifyResponse = z.infer<typeof verifyResponseSchema>;

/** The header a remembered device presents to skip the e-mailed code. */
export const REMEMBERED_DEVICE_HEADER = 'x-remembered-device';

export const otpVerifiedResponseSchema = z.object({ otp_verified: z.boolean() });
export const otpChallengeResponseSchema = z.object({ otp_challenge_sent: z.literal(true) });

/** What a user tells about themself, at sign-up (§2.6) and when editing the profile (§2.19). */
const profileFields = {
  first_name: requiredText(150),
  last_name: requiredText(150),
  email: emailField,
  country: countryField,
  institution: requiredText(),
  profession: requiredText(),
  reason: requiredText(2000),
  website: websiteField,
};

export const registerRequestSchema = z.object({
  username: usernameField,
  ...profileFields,
  country: countryField.default(DEFAULT_COUNTRY),
  password: passwordField,
  newsletter: z.boolean().default(true),
});
export type RegisterRequest = z.input<typeof registerRequestSchema>;

/**
 * The confirmation check runs as soon as both passwords are typed, even while other fields of the
 * form are still invalid, so the user sees every problem at once.
 */
const passwordsMatchRule = {
  message: messages.passwordsDoNotMatch,
  path: ['confirm_password'],
  when: (payload: { value: unknown }) => {
    const value = payload.value as { password?: unknown; confirm_password?: unknown } | undefined;
    return (
      typeof value?.password === 'string' && typeof value.confirm_password === 'string' && value.confirm_password !== ''
    );
  },
};

/** The register form adds the confirmation and the three agreements (§2.6, §5). */
export const registerFormSchema = registerRequestSchema
  .extend({
    confirm_password: z.string().min(1, messages.required),
    accept_terms: z.literal(true, { error: messages.mustAgree }),
    accept_privacy: z.literal(true, { error: messages.mustAgree }),
    accept_non_commercial: z.literal(true, { error: messages.mustAgree }),
  })
  .refine((form) => form.password === form.confirm_password, passwordsMatchRule);
export type RegisterForm = z.input<typeof registerFormSchema>;

/** The same answer whether or not an account has the e-mail address (its owner is told by e-mail). */
export const registerResponseSchema = z.object({ username: z.string(), message: z.string() });
export type RegisterResponse = z.infer<typeof registerResponseSchema>;

export const userInfoRequestSchema = z.object({ username: requiredText(150) });

/** The profile as anyone may read it; the owner also gets e-mail preferences and the declared use. */
export const userProfileSchema = z.object({
  id: z.number().int(),
  username: z.string(),
  first_name: z.string(),
  last_name: z.string(),
  email: z.string(),
  country: z.string(),
  institution: z.string(),
  profession: z.string(),
  reason: z.string(),
  website: z.string(),
  personalWebsite: z.string(),
  profile_picture: z.string().nullable(),
  newsletter: z.boolean().optional(),
  institutional_use: institutionalUseSchema.nullable().optional(),
});
export type UserProfile = z.infer<typeof userProfileSchema>;

export const updateProfileRequestSchema = z.object({ ...profileFields, newsletter: z.boolean() });
export type UpdateProfileRequest = z.input<typeof updateProfileRequestSchema>;

export const resetPasswordRequestSchema = z.object({
  email: emailField,
  /**
   * The page origin, which the spec's client sends. Accepted but never used: e-mailed links start with
   * the server's configured public URL only, as anything else here could point them at another site.
   */
  host: z.string().trim().max(500).optional(),
});
export type ResetPasswordRequest = z.input<typeof resetPasswordRequestSchema>;

export const newPasswordRequestSchema = z.object({
  token: requiredText(200),
  password: passwordField,
});
export type NewPasswordRequest = z.infer<typeof newPasswordRequestSchema>;

export const newPasswordFormSchema = z
  .object({ password: passwordField, confirm_password: z.string().min(1, messages.required) })
  .refine((form) => form.password === form.confirm_password, passwordsMatchRule);

/** Sent from Login when logins of an account are held back: the account's owner gets the link. */
export const sendUnlockLinkRequestSchema = z.object({ username: requiredText(254) });
export type SendUnlockLinkRequest = z.infer<typeof sendUnlockLinkRequestSchema>;

export const unlockLoginRequestSchema = z.object({ token: requiredText(200) });
/** The browser that opened the link is remembered for the account: it keeps the token as Verify's. */
export const unlockLoginResponseSchema = z.object({ username: z.string(), remembered_device_token: z.string() });
export type UnlockLoginResponse = z.infer<typeof unlockLoginResponseSchema>;

export const setInstitutionalUseRequestSchema = z.object({
  institutional_use: institutionalUseSchema,
});

export const deleteAccountRequestSchema = z.object({ confirm: requiredText(150) });

export const messageResponseSchema = z.object({ message: z.string() });
export type MessageResponse = z.infer<typeof messageResponseSchema>;

export const meResponseSchema = z.object({
  user_id: z.number().int(),
  username: z.string(),
  verified: z.boolean(),
  institutional_use: institutionalUseSchema.nullable(),
  profile_picture: z.string().nullable(),
  /** When the token stops being valid (ISO 8601). */
  expires_at: z.string(),
});
export type MeResponse = z.infer<typeof meResponseSchema>;

export const instanceInfoSchema = z.object({
  provider_name: z.string(),
  /** PUBLIC_URL: where users and phones reach the app; the sessions' QR codes start with it. */
  public_url: z.string(),
  contact_email: z.string(),
  links: z.object({
    forum: z.string(),
    source_code: z.string(),
    processing_code: z.string(),
    best_practices: z.string(),
    faq: z.string(),
    terms: z.string(),
    privacy: z.string(),
    bug_report: z.string(),
    get_started: z.string(),
  }),
});
export type InstanceInfo = z.infer<typeof instanceInfoSchema>;
