import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { API_PREFIX, capturePaths, messages } from '@kinetrace/contracts';
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

const fingerprintedDir = join(webDistDir, 'assets');
/** Vite names the files it writes to assets/ after their content: a changed file gets a new name. */
const isFingerprinted = (path: string) => !relative(fingerprintedDir, path).startsWith('..');
/** A file whose name changes with its content is kept by browsers and proxies without asking again. */
const FOREVER = 'public, max-age=31536000, immutable';

/**
 * Serves the built web app at `/`; any other GET outside the API answers the app's page so the
 * app's history-mode routes (/sessions, /new-password/{token}, …) load on refresh, and a HEAD there answers
 * as that GET does, without the body (link checkers and uptime monitors ask so). The page and the files
 * whose names stay (the icons, the bone meshes) are asked for again on each load (no-cache: a new version is
 * seen at once, unchanged ones answer 304); the fingerprinted scripts and styles are cached for good.
 */
export async function registerWebApp(app: FastifyInstance): Promise<void> {
  const built = existsSync(`${webDistDir}/index.html`);
  if (built) {
    await app.register(fastifyStatic, {
      root: webDistDir,
      wildcard: false,
      index: false,
      // index.html itself is never served as a file: each page carries its own nonce. The compressed copies are
      // sent in place of their files (preCompressed), not at addresses of their own.
      globIgnore: ['index.html', '**/*.br', '**/*.gz'],
      // The build's .br and .gz copies (scripts/precompress-plugin.ts) by the browser's Accept-Encoding:
      // compressed once at build time rather than on each answer.
      preCompressed: true,
      cacheControl: false,
      setHeaders: (reply, path) => {
        reply.header('cache-control', isFingerprinted(path) ? FOREVER : 'no-cache');
      },
    });
  }
  app.setNotFoundHandler(async (request, reply) => {
    const isApi = request.url === API_PREFIX || request.url.startsWith(`${API_PREFIX}/`);
    // A model file the phones are not given is missing, not a page of the app.
    const isPoseModel = request.url.startsWith(capturePaths.poseModels);
    const isRead = request.method === 'GET' || request.method === 'HEAD';
    if (isApi || isPoseModel || !isRead) return reply.code(404).send({ detail: messages.notFound });
    if (!built) {
      return reply.code(503).type('text/plain').send('The web app is not built yet: run `npm run build:web`.');
    }
    return reply
      .header('cache-control', 'no-cache')
      .type('text/html; charset=utf-8')
      .send(await appPage(styleNonceOf(reply)));
  });
}
