import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { API_PREFIX, messages } from '@kinetrace/contracts';

export const webDistDir = fileURLToPath(new URL('../../../web/dist', import.meta.url));

/**
 * Serves the built web app at `/`; any other GET outside the API answers index.html so the
 * app's history-mode routes (/sessions, /new-password/{token}, …) load on refresh.
 */
export async function registerWebApp(app: FastifyInstance): Promise<void> {
  const built = existsSync(`${webDistDir}/index.html`);
  if (built) await app.register(fastifyStatic, { root: webDistDir, wildcard: false, index: 'index.html' });
  app.setNotFoundHandler((request, reply) => {
    const isApi = request.url === API_PREFIX || request.url.startsWith(`${API_PREFIX}/`);
    if (isApi || request.method !== 'GET') return reply.code(404).send({ detail: messages.notFound });
    if (!built) {
      return reply.code(503).type('text/plain').send('The web app is not built yet: run `npm run build:web`.');
    }
    return reply.header('cache-control', 'no-cache').sendFile('index.html');
  });
}
