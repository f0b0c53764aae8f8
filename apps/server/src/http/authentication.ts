import type { FastifyInstance, FastifyRequest } from 'fastify';
import { messages } from '@kinetrace/contracts';
import type { AuthContext, AuthService } from '../services/auth-service.ts';
import { forbidden, unauthorized } from './http-errors.ts';
import { readOnlyMayCall } from './read-only-routes.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller, when the request carries a live token (verified or not). */
    auth: AuthContext | null;
  }
}

/** "Authorization: Token <t>" (as the spec's client sends) or "Bearer <t>". */
export function bearerOf(request: FastifyRequest): string | undefined {
  const match = /^(?:Token|Bearer)\s+(\S+)$/i.exec(request.headers.authorization ?? '');
  return match?.[1];
}

export function registerAuthentication(app: FastifyInstance, authService: AuthService): void {
  app.decorateRequest('auth', null);
  app.addHook('onRequest', async (request) => {
    const bearer = bearerOf(request);
    request.auth = bearer ? await authService.authenticate(bearer) : null;
    // Default deny: a read-only personal token is refused wherever reading is not all the route does.
    if (request.auth?.token.readOnly && !readOnlyMayCall(request.method, request.routeOptions.url))
      throw forbidden(messages.readOnlyToken);
  });
}

/** A logged-in caller, whether or not the e-mailed code was entered yet. */
export function requireLogin(request: FastifyRequest): AuthContext {
  if (!request.auth) throw unauthorized(messages.notAuthenticated);
  return request.auth;
}

/** A caller who passed both factors: what every call of the main app needs. */
export function requireVerified(request: FastifyRequest): AuthContext {
  const context = requireLogin(request);
  if (!context.token.verified) throw forbidden(messages.notVerified);
  return context;
}

/**
 * A verified browser login, not a personal API token: for what a leaked script token must not reach, making
 * or revoking tokens (one would outlive its own revocation), the account's e-mail (its second factor) and
 * deleting the account.
 */
export function requireBrowserLogin(request: FastifyRequest): AuthContext {
  const context = requireVerified(request);
  if (context.token.kind !== 'login') throw forbidden(messages.browserLoginOnly);
  return context;
}
