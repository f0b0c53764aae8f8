import type { FieldErrors } from '@kinetrace/contracts';

/** Errors a service throws to give the client a definite answer; anything else is a 500. */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    readonly body: Record<string, unknown>,
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof body.detail === 'string' ? body.detail : `HTTP ${statusCode}`);
  }
}

/** 400 with field-keyed messages, the shape forms put under their fields. */
export const invalidFields = (errors: FieldErrors) => new HttpError(400, errors);
export const badRequest = (detail: string) => new HttpError(400, { detail });
export const unauthorized = (detail: string) => new HttpError(401, { detail });
export const forbidden = (detail: string) => new HttpError(403, { detail });
export const notFound = (detail: string) => new HttpError(404, { detail });
export const tooManyRequests = (detail: string, retryAfterS: number) =>
  new HttpError(429, { detail }, { 'retry-after': String(Math.max(1, Math.ceil(retryAfterS))) });
