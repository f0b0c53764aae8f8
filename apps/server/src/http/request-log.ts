import type { FastifyRequest } from 'fastify';

/** Paths that carry a secret in the URL (the reset link's token) are logged without it. */
export function redactedUrl(url: string): string {
  return url.replace(/(\/new-password\/)[^/?#]+/, '$1[redacted]');
}

/** What the access log keeps of a request: never headers (tokens) or bodies (passwords, codes). */
export function serializeRequest(request: FastifyRequest) {
  return { method: request.method, url: redactedUrl(request.url), remoteAddress: request.ip };
}
