import { describe, expect, it } from 'vitest';
import {
  COUNTRIES,
  COUNTRY_NAMES,
  errorText,
  fieldErrorsFromZod,
  messages,
  needsLicenseAnswer,
  registerFormSchema,
  verifyRequestSchema,
} from '../src/index.ts';

const validForm = {
  username: 'gait_lab-01',
  first_name: 'Ada',
  last_name: 'Lovelace',
  email: 'ada@example.org',
  country: 'United States',
  institution: 'Uni',
  profession: 'Researcher',
  reason: 'Gait studies',
  website: '',
  password: 'a'.repeat(20),
  confirm_password: 'a'.repeat(20),
  newsletter: true,
  accept_terms: true as const,
  accept_privacy: true as const,
  accept_non_commercial: true as const,
};

function errorsOf(input: unknown) {
  const result = registerFormSchema.safeParse(input);
  return result.success ? {} : fieldErrorsFromZod(result.error);
}

describe('account validation rules', () => {
  it('accepts a complete registration', () => {
    expect(errorsOf(validForm)).toEqual({});
  });

  it('refuses a 19-character password and a mismatched confirmation, keyed by field', () => {
    const errors = errorsOf({ ...validForm, password: 'a'.repeat(19), confirm_password: 'b'.repeat(19) });
    expect(errors.password).toEqual([messages.passwordTooShort(20)]);
    expect(errors.confirm_password).toEqual([messages.passwordsDoNotMatch]);
    const mismatch = errorsOf({ ...validForm, confirm_password: 'b'.repeat(20) });
    expect(mismatch.confirm_password).toEqual([messages.passwordsDoNotMatch]);
  });

  it('requires every mandatory field and each agreement', () => {
    const errors = errorsOf({
      ...validForm,
      first_name: '  ',
      email: 'not-an-email',
      accept_terms: false,
      reason: undefined,
    });
    expect(errors.first_name).toEqual([messages.required]);
    expect(errors.email).toEqual([messages.invalidEmail]);
    expect(errors.reason).toEqual([messages.required]);
    expect(errors.accept_terms).toEqual([messages.mustAgree]);
  });

  it('keeps usernames to letters, digits, hyphen and underscore', () => {
    expect(errorsOf({ ...validForm, username: 'ada lovelace' }).username).toEqual([messages.noSpaces]);
    expect(errorsOf({ ...validForm, username: 'ada.lovelace' }).username).toEqual([messages.alphaDashCustom]);
  });

  it('takes only http(s) websites: no javascript:, data: or vbscript: link goes out to other API readers', () => {
    for (const website of ['', 'example.org/lab', 'https://lab.example.org', 'HTTP://lab.example.org:8080/~ada'])
      expect(errorsOf({ ...validForm, website }).website, website).toBeUndefined();
    for (const website of [
      'javascript:alert(document.cookie)',
      'JavaScript://%0Aalert(1)',
      ' javascript:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      'vbscript:msgbox(1)',
      'ftp://files.example.org',
      'example.org:8080',
      'https://',
    ])
      expect(errorsOf({ ...validForm, website }).website, website).toEqual([messages.websiteNotWeb]);
  });

  it('trims the code and wants exactly six digits', () => {
    expect(verifyRequestSchema.parse({ otp_token: ' 123456 ' }).otp_token).toBe('123456');
    expect(verifyRequestSchema.safeParse({ otp_token: '12345' }).success).toBe(false);
    expect(verifyRequestSchema.safeParse({ otp_token: '12345a' }).success).toBe(false);
  });

  it('lists every country with a dial code, the United States first and a Not Selected entry', () => {
    expect(COUNTRIES.length).toBeGreaterThan(240);
    expect(COUNTRIES[0]).toEqual({ name: 'United States', iso2: 'US', dialCode: '+1' });
    expect(COUNTRIES.find((country) => country.iso2 === 'FR')?.dialCode).toBe('+33');
    expect(COUNTRY_NAMES).toContain('Not Selected');
  });

  it('forces the licence page for empty and not-permitted uses only', () => {
    expect(needsLicenseAnswer(null)).toBe(true);
    expect(needsLicenseAnswer('')).toBe(true);
    expect(needsLicenseAnswer('patient_care')).toBe(true);
    expect(needsLicenseAnswer('research_at_academic')).toBe(false);
  });

  it('joins the values of an error body for the generic toast', () => {
    expect(errorText({ email: ['Bad e-mail.'], detail: 'Nope.' }, 'x')).toBe('Bad e-mail. Nope.');
    expect(errorText(undefined, 'Finished with error')).toBe('Finished with error');
  });
});

describe('password confirmation', () => {
  it('reports a mismatch even while other fields are still missing', () => {
    const errors = errorsOf({ password: 'a'.repeat(20), confirm_password: 'b'.repeat(20) });
    expect(errors.confirm_password).toEqual([messages.passwordsDoNotMatch]);
    expect(errors.first_name).toEqual([messages.required]);
  });
});
