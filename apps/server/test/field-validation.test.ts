import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import * as contracts from '@kinetrace/contracts';
import { idMessages, messages, PASSWORD_MAX_LENGTH } from '@kinetrace/contracts';
import { authHeader, newUserPayload, startTestApp, verifiedUser, type TestApp } from './support/test-app.ts';

/**
 * Issue 13 defect 10: values of the wrong type were coerced (`"weight": true` became 1 kg) or answered
 * with a wrong or default message ('This field is required.' for `{"username": 123}`, 'Invalid input').
 * Every field error is a sentence a person understands, worded once in the contracts.
 */

/** The validator's own English texts, which must never reach a user. */
const zodEnglish = z.locales.en().localeError;
const DEFAULT_TEXT =
  /^(Invalid input|Invalid option|Invalid (string|number|email|UUID|URL|element|key|union|date)|Too (big|small):|Unrecognized key)/;

/** Values a client may send in place of any field: wrong types, a huge text, odd numbers. */
const WRONG_VALUES: unknown[] = [
  true,
  [1.7],
  null,
  123,
  1.5,
  -1e20,
  {},
  [],
  'not a valid value ✓',
  'x'.repeat(900_000),
];

/** Every schema of the contracts a client's input goes through (bodies, query strings, multipart fields, tus metadata, paths). */
const inputSchemas = Object.entries(contracts as Record<string, unknown>).filter(
  (entry): entry is [string, z.ZodObject] =>
    entry[1] instanceof z.ZodObject && /(Request|Query|Input|Form|Fields|Metadata)Schema$|Params$/.test(entry[0]),
);

/** A subject every check accepts: each test breaks one field of it. */
const subject = {
  name: 'S01',
  weight: 70,
  height: 1.7,
  birth_year: 1990,
  subject_tags: ['unimpaired'],
  terms: true,
};

describe('every input schema of the contracts', () => {
  it('finds the input schemas to check', () => {
    expect(inputSchemas.map(([name]) => name)).toEqual(
      expect.arrayContaining([
        'loginRequestSchema',
        'registerRequestSchema',
        'subjectInputSchema',
        'validSessionsRequestSchema',
        'recordQuerySchema',
      ]),
    );
  });

  it.each(inputSchemas)(
    '%s answers wrong types and sizes in words, never with the validator defaults',
    (_name, schema) => {
      for (const field of Object.keys(schema.shape)) {
        for (const value of WRONG_VALUES) {
          const result = schema.safeParse({ [field]: value }, { reportInput: true });
          if (result.success) continue;
          const sent = `${field}=${JSON.stringify(value)?.slice(0, 30)}`;
          for (const issue of result.error.issues) {
            const defaultText = zodEnglish(issue as Parameters<typeof zodEnglish>[0]);
            expect(issue.message, sent).not.toBe(typeof defaultText === 'string' ? defaultText : defaultText?.message);
            expect(issue.message, sent).not.toMatch(DEFAULT_TEXT);
          }
          // A value that is there but wrong is answered with what is expected, never as missing.
          const first = result.error.issues.find((issue) => issue.path.length === 1 && issue.path[0] === field);
          if (first) expect(first.message, sent).not.toBe(messages.required);
        }
      }
    },
  );

  it('refuses rather than converts: a boolean, a list or null is no number', () => {
    expect(contracts.subjectInputSchema.safeParse(subject).success).toBe(true);
    for (const [field, value] of [
      ['weight', true],
      ['weight', '70'],
      ['height', [1.7]],
      ['birth_year', null],
    ] as const) {
      expect(
        contracts.subjectInputSchema.safeParse({ ...subject, [field]: value }).success,
        `${field}=${JSON.stringify(value)}`,
      ).toBe(false);
    }
    expect(contracts.validSessionsRequestSchema.safeParse({ start: null }).success).toBe(false);
    // Text from a query string is read as the number it spells; -1 asks for every row.
    expect(contracts.subjectListQuerySchema.parse({ start: '40', quantity: '-1' })).toMatchObject({
      start: 40,
      quantity: -1,
    });
    // An emptied number input of a form is a missing value.
    expect(
      contracts.fieldErrorsFromZod(contracts.subjectInputSchema.safeParse({ ...subject, weight: '' }).error!),
    ).toEqual({
      weight: [messages.required],
    });
  });
});

describe('field errors from the API', () => {
  let test: TestApp;
  beforeAll(async () => {
    test = await startTestApp('pglite'); // validation happens before any query: one backend is enough
  });
  afterAll(async () => {
    await test?.close();
  });
  const post = (url: string, payload: unknown, headers: Record<string, string> = {}) =>
    test.call({ method: 'POST', url, payload: payload as Record<string, unknown>, headers });

  it('answers a wrong-typed or huge login with what is wrong, per field', async () => {
    const numberName = await post('/api/login/', { username: 123, password: 'some long enough password' });
    expect(numberName.statusCode).toBe(400);
    expect(numberName.json()).toEqual({ username: [messages.notText] });
    // zod also checks a list's length against the text's minimum: only the type error is answered.
    expect((await post('/api/login/', { username: [], password: 'some long enough password' })).json()).toEqual({
      username: [messages.notText],
    });

    const hugePassword = 'x'.repeat(900 * 1024);
    const login = await post('/api/login/', { username: 'someone', password: hugePassword });
    expect(login.statusCode).toBe(400);
    expect(login.json()).toEqual({ password: [messages.passwordTooLong(PASSWORD_MAX_LENGTH)] });
    const register = await post('/api/register/', newUserPayload({ password: hugePassword }));
    expect(register.json()).toEqual({ password: [messages.passwordTooLong(PASSWORD_MAX_LENGTH)] });
  });

  it('refuses a subject whose numbers are not numbers, with the field’s own words, and saves nothing', async () => {
    const user = await verifiedUser(test);
    const refused = await post(
      '/api/subjects/',
      { ...subject, weight: true, height: [1.7], birth_year: null },
      authHeader(user.token),
    );
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toEqual({
      weight: [messages.subjectWeightNotNumber],
      height: [messages.subjectHeightNotNumber],
      birth_year: [messages.subjectBirthYearNotYear],
    });
    const tags = await post('/api/subjects/', { ...subject, subject_tags: 'unimpaired' }, authHeader(user.token));
    expect(tags.json()).toEqual({ subject_tags: [messages.subjectTagsNotArray] });
    const list = await test.call({ method: 'GET', url: '/api/subjects/', headers: authHeader(user.token) });
    expect((list.json() as { subjects: unknown[] }).subjects).toEqual([]);
  });

  it('refuses a null page start instead of reading it as 0', async () => {
    const user = await verifiedUser(test);
    const response = await post('/api/sessions/valid/', { start: null, quantity: 40 }, authHeader(user.token));
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ start: [idMessages.notAWholeNumber] });
  });
});
