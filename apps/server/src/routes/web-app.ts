import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { API_PREFIX, messages } from '@kinetrace/contracts';
import { styleNonceOf } from '../http/security-headers.ts';

export const webDistDir = fileURLToPath(new URL('../../../web/dist', import.meta.url));

/**
 * The app's page with this answer's style nonce in a `csp-nonce` meta tag (Vite's name for it), where the app
 * and Vite's chunk loader read the nonce for the style elements they add. Read per answer: a rebuilt app is
 * served without a restart, as its other files are.
 */
async function appPage(styleNonce: string): Promise<string> {
  const html = await readFile(`${webDistDir}/index.html`, 'utf8');
  return html.replace('<head>', `<head>\n    <meta property="csp-nonce" nonce="${styleNonce}" />`);
}

/**
 * Serves the built web app at `/`; any other GET outside the API answers the app's page so the
 * app's history-mode routes (/sessions, /new-password/{token}, …) load on refresh.
 */
export async function registerWebApp(app: FastifyInstance): Promise<void> {
  const built = existsSync(`${webDistDir}/index.html`);
  // index.html itself is never served as a file: each page carries its own nonce.
  if (built) {
    await app.register(fastifyStatic, {
      root: webDistDir,
      wildcard: false,
      index: false,
      globIgnore: ['index.html'],
    });
  }
  app.setNotFoundHandler(async (request, reply) => {
    const isApi = request.url === API_PREFIX || request.url.startsWith(`${API_PREFIX}/`);
    if (isApi || request.method !== 'GET') return reply.code(404).send({ detail: messages.notFound });
    if (!built) {
      return reply.code(503).type('text/plain').send('The web app is not built yet: run `npm run build:web`.');
    }
    return reply
      .header('cache-control', 'no-cache')
      .type('text/html; charset=utf-8')
      .send(await appPage(styleNonceOf(reply)));
  });
}
