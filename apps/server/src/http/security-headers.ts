import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import fastifyHelmet from '@fastify/helmet';
import type { FastifyInstance, FastifyReply } from 'fastify';

type Source = string | ((request: unknown, response: ServerResponse) => string);

/** Each answer's nonce for the style elements the web app adds (Mantine's theme variables, the modals' scroll lock). */
const styleNonces = new WeakMap<ServerResponse, string>();

/** The style nonce of this answer's content security policy, for the page to give its style elements. */
export function styleNonceOf(reply: FastifyReply): string {
  const nonce = styleNonces.get(reply.raw);
  if (!nonce) throw new Error('No style nonce: registerSecurityHeaders must come before the routes');
  return nonce;
}

/**
 * What the server's pages load, and nothing more: their own scripts, stylesheets and fonts, and the styles of
 * `styleSrc`; images and videos from the server (signed media URLs start with PUBLIC_URL), data: images (the
 * pairing QR code, Swagger UI's icons) and pictures or recordings the page holds (blob: URLs); calls to the
 * server only. No eval, no inline scripts or script attributes, no plugins, no <base>, forms posting only
 * here, and no page may frame them.
 */
function contentSecurityPolicy<Style extends Source>(
  publicUrl: string,
  styleSrc: Style[],
): Record<string, (string | Style)[]> {
  const publicOrigin = new URL(publicUrl).origin;
  return {
    'default-src': ["'self'"],
    'script-src': ["'self'"],
    'script-src-attr': ["'none'"],
    'style-src': styleSrc,
    'img-src': ["'self'", publicOrigin, 'data:', 'blob:'],
    'media-src': ["'self'", publicOrigin, 'blob:'],
    'font-src': ["'self'"],
    'connect-src': ["'self'", publicOrigin],
    'object-src': ["'none'"],
    'base-uri': ["'self'"],
    'form-action': ["'self'"],
    'frame-ancestors': ["'none'"],
  };
}

/**
 * The API docs page (Swagger UI, served by @fastify/swagger-ui, which sets it on its own routes). Swagger UI
 * adds a style element and writes style attributes into the markup it renders, with no way to give them a
 * nonce: its styles may be inline; its scripts, like the app's, are only its own files.
 */
export const docsContentSecurityPolicy = (publicUrl: string) =>
  contentSecurityPolicy(publicUrl, ["'self'", "'unsafe-inline'"]);

/**
 * Security headers on every answer (the web app, the API, the docs) through helmet: the content security
 * policy above, X-Frame-Options DENY, nosniff, and no Referer (the app's URLs carry tokens: capture pairing,
 * password reset, share links). No Strict-Transport-Security: the server's own HTTPS is a self-signed
 * certificate for phones on a local network, and HSTS would stop people from accepting it; a deployment
 * behind a TLS proxy sets HSTS there. No upgrade-insecure-requests for the same reason: plain HTTP on a
 * local network must keep working.
 */
export async function registerSecurityHeaders(app: FastifyInstance, publicUrl: string): Promise<void> {
  // Before helmet's own hook, which writes the policy with this nonce.
  app.addHook('onRequest', async (_request, reply) => {
    styleNonces.set(reply.raw, randomBytes(16).toString('base64'));
  });
  await app.register(fastifyHelmet, {
    contentSecurityPolicy: {
      useDefaults: false,
      // The web app's style elements carry this answer's nonce (routes/web-app.ts puts it in the page).
      directives: contentSecurityPolicy(publicUrl, [
        "'self'",
        (_request, response) => `'nonce-${styleNonces.get(response)}'`,
      ]),
    },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
    strictTransportSecurity: false,
  });
}
