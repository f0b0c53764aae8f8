import { z } from 'zod';

/**
 * Error bodies. Validation failures are field-keyed lists of messages (`{ "email": ["..."] }`);
 * other failures carry one `detail` text. The web's generic error toast joins the values (§8).
 */
export const fieldErrorsSchema = z.record(z.string(), z.array(z.string()));
export type FieldErrors = z.infer<typeof fieldErrorsSchema>;

export const detailErrorSchema = z.object({ detail: z.string() });
export type DetailError = z.infer<typeof detailErrorSchema>;

export const errorBodySchema = z.union([detailErrorSchema, fieldErrorsSchema]);

/** Turns a zod error into field-keyed messages; errors on the whole object go under `non_field_errors`. */
export function fieldErrorsFromZod(error: z.ZodError): FieldErrors {
  const result: FieldErrors = {};
  for (const issue of error.issues) {
    const key = issue.path.length > 0 ? issue.path.map(String).join('.') : 'non_field_errors';
    (result[key] ??= []).push(issue.message);
  }
  return result;
}

/** The text of the generic error toast: the joined values of the body's fields. */
export function errorText(body: unknown, fallback: string): string {
  if (typeof body === 'string') return body || fallback;
  if (!body || typeof body !== 'object') return fallback;
  const parts = Object.values(body as Record<string, unknown>).flatMap((value) =>
    Array.isArray(value) ? value.map(String) : typeof value === 'object' ? [] : [String(value)],
  );
  return parts.length > 0 ? parts.join(' ') : fallback;
}
