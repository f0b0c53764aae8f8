import { z } from 'zod';
import { INT4_MAX, wholeNumber } from './ids.ts';
import { messages } from './messages.ts';

/** Query-string booleans as the client sends them ("true"/"false", 1/0), default false. */
export const booleanQuery = z
  .union([z.boolean(), z.enum(['true', 'false', '1', '0', 'True', 'False'])], { error: messages.notTrueOrFalse })
  .optional()
  .default(false)
  .transform((value) => value === true || value === 'true' || value === 'True' || value === '1');

export const pagingQuerySchema = z.object({
  start: wholeNumber(0, INT4_MAX).default(0),
  /** Page size; -1 means everything. */
  quantity: wholeNumber(-1, 1000).default(40),
});
