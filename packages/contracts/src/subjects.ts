import { z } from 'zod';
import {
  FULL_SUBJECT_LOAD_PAGE_SIZE,
  SUBJECT_HEIGHT_RANGE_M,
  SUBJECT_MIN_BIRTH_YEAR,
  SUBJECT_WEIGHT_RANGE_KG,
} from './constants.ts';
import { wrongTypeError } from './error-map.ts';
import { fromNumberInput, requiredText } from './fields.ts';
import { wholeNumber } from './ids.ts';
import { messages } from './messages.ts';
import { booleanQuery, pagingQuerySchema } from './paging.ts';

/** §3 Subject: sex at birth and gender options, value → label. */
export const SEX_OPTIONS = {
  woman: 'Female',
  man: 'Male',
  intersect: 'Intersex',
  'not-listed': 'Not Listed',
  'prefer-not-respond': 'Prefer not to respond',
} as const;
export const GENDER_OPTIONS = {
  woman: 'Woman',
  man: 'Man',
  transgender: 'Transgender',
  'non-binary': 'Non-Binary/Non-Conforming',
  'prefer-not-respond': 'Prefer not to respond',
} as const;
export type SexAtBirth = keyof typeof SEX_OPTIONS;
export type Gender = keyof typeof GENDER_OPTIONS;

const optionKeys = <T extends Record<string, string>>(options: T) =>
  Object.keys(options) as [keyof T & string, ...(keyof T & string)[]];

/** The current year, against which birth years are checked (a function so that a long-running server moves on). */
export const currentYear = () => new Date().getFullYear();

/** §5 subject rules with their exact messages; the same schema validates the dialog and the API. */
export const subjectInputSchema = z.object({
  name: requiredText(255),
  weight: fromNumberInput(
    z
      .number(wrongTypeError(messages.subjectWeightNotNumber))
      .min(SUBJECT_WEIGHT_RANGE_KG.min, messages.subjectWeightTooSmall)
      .max(SUBJECT_WEIGHT_RANGE_KG.max, messages.subjectWeightTooLarge),
  ),
  height: fromNumberInput(
    z
      .number(wrongTypeError(messages.subjectHeightNotNumber))
      .min(SUBJECT_HEIGHT_RANGE_M.min, messages.subjectHeightTooSmall)
      .max(SUBJECT_HEIGHT_RANGE_M.max, messages.subjectHeightTooLarge),
  ),
  birth_year: fromNumberInput(
    z
      .number(wrongTypeError(messages.subjectBirthYearNotYear))
      .int(messages.subjectBirthYearNotYear)
      .min(SUBJECT_MIN_BIRTH_YEAR, messages.subjectBirthYearTooEarly)
      .refine((year) => year <= currentYear(), messages.subjectBirthYearInFuture),
  ),
  sex_at_birth: z.enum(optionKeys(SEX_OPTIONS)).nullable().optional().default(null),
  gender: z.enum(optionKeys(GENDER_OPTIONS)).nullable().optional().default(null),
  characteristics: z.string().trim().max(5000).optional().default(''),
  subject_tags: z
    .array(
      z.string().trim().min(1).max(100),
      wrongTypeError(messages.subjectTagsNotArray, messages.subjectTagsRequired),
    )
    .min(1, messages.subjectTagsRequired)
    .max(50),
  terms: z.literal(true, { error: messages.subjectConsentRequired }),
});
export type SubjectInput = z.input<typeof subjectInputSchema>;

export const subjectSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  weight: z.number(),
  height: z.number(),
  birth_year: z.number().int(),
  sex_at_birth: z.string().nullable(),
  gender: z.string().nullable(),
  sex_display: z.string(),
  gender_display: z.string(),
  characteristics: z.string(),
  subject_tags: z.array(z.string()),
  terms: z.boolean(),
  created_at: z.string(),
  updated_at: z.string(),
  display_name: z.string(),
  trashed: z.boolean(),
  trashed_at: z.string().nullable(),
  share_token: z.string().nullable(),
  /** Sessions of the subject the caller may see. */
  sessions_count: z.number().int(),
});
export type Subject = z.infer<typeof subjectSchema>;

/** "Name (70 kg, 1.8 m, 1990)", as the pickers show a subject (units as people write them). */
export function subjectDisplayName(subject: {
  name: string;
  weight: number;
  height: number;
  birth_year: number;
}): string {
  return `${subject.name} (${subject.weight} kg, ${subject.height} m, ${subject.birth_year})`;
}

export const SUBJECT_SORT_FIELDS = [
  'name',
  'weight',
  'height',
  'birth_year',
  'sex_at_birth',
  'gender',
  'created_at',
] as const;

export const subjectListQuerySchema = pagingQuerySchema.extend({
  quantity: wholeNumber(-1, 1000).default(FULL_SUBJECT_LOAD_PAGE_SIZE),
  search: z.string().trim().max(200).optional().default(''),
  /** Only what a picker needs (id, name, display_name). */
  simple: booleanQuery,
  /** Put this session's subject first, so a picker shows it even on another page. */
  session_id: z.string().uuid().optional(),
  include_trashed: booleanQuery,
  sort: z.enum(SUBJECT_SORT_FIELDS).default('name'),
  sort_desc: booleanQuery,
});
export type SubjectListQuery = z.input<typeof subjectListQuerySchema>;

export const subjectListResponseSchema = z.object({ subjects: z.array(subjectSchema), total: z.number().int() });

export const subjectTagItemSchema = z.object({ tag: z.string() });
