import type { FastifyRequest } from 'fastify';
import type { Viewer } from '../services/access.ts';

/** The caller as a reader: a verified user (if any) and an optional share token from the query. */
export function viewerOf(request: FastifyRequest, shareToken?: string): Viewer {
  const user = request.auth?.token.verified ? request.auth.user : null;
  return { user, shareToken };
}
