import { z } from 'zod';

/** Query-string booleans as the client sends them ("true"/"false", 1/0), default false. */
export const booleanQuery = z
  .union([z.boolean(), z.enum(['true', 'false', '1', '0', 'True', 'False'])])
  .optional()
  .default(false)
  .transform((value) => value === true || value === 'true' || value === 'True' || value === '1');

export const pagingQuerySchema = z.object({
  start: z.coerce.number().int().min(0).default(0),
  /** Page size; -1 means everything. */
  quantity: z.coerce.number().int().min(-1).max(1000).default(40),
});
