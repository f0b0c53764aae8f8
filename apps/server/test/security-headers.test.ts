import { readdirSync, readFileSync, statSync } from 'node:fs';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountPaths, API_PREFIX, instancePaths } from '@kinetrace/contracts';
import { webDistDir } from '../src/routes/web-app.ts';
import { ensureBuilt } from './support/npm-start.ts';
import { startTestApp, type TestApp } from './support/test-app.ts';

/**
 * Issue 20, item 13: every answer (the web app's pages and files, the API, the API docs) carries a content
 * security policy that runs only the server's own scripts, may not be framed, is not MIME-sniffed and
 * sends no Referer.
 */

/** The policy's directives by name, each with its sources. */
function policyOf(header: string | string[] | number | undefined): Map<string, string[]> {
  expect(typeof header, 'a Content-Security-Policy header').toBe('string');
  const directives = new Map<string, string[]>();
  for (const part of String(header).split(';')) {
    const [name, ...sources] = part.trim().split(/\s+/);
    if (name) directives.set(name.toLowerCase(), sources);
  }
  return directives;
}

const PUBLIC_URL = 'http://kinetrace.test:8443';
const PUBLIC_ORIGIN = new URL(PUBLIC_URL).origin;

let test: TestApp;
beforeAll(async () => {
  // The app's pages are its built index.html: build it as `npm start` does, before the app looks for it.
  ensureBuilt();
  test = await startTestApp('pglite', { PUBLIC_URL });
}, 300_000);
afterAll(async () => {
  await test?.close();
});

const get = (url: string, headers: Record<string, string> = {}) => test.call({ method: 'GET', url, headers });

describe('security headers', () => {
  function expectHardened(response: Awaited<ReturnType<typeof get>>) {
    const policy = policyOf(response.headers['content-security-policy']);
    expect(policy.get('script-src')).toEqual(["'self'"]);
    expect(policy.get('script-src-attr')).toEqual(["'none'"]);
    expect(policy.get('default-src')).toEqual(["'self'"]);
    expect(policy.get('object-src')).toEqual(["'none'"]);
    expect(policy.get('base-uri')).toEqual(["'self'"]);
    expect(policy.get('frame-ancestors')).toEqual(["'none'"]);
    expect(response.headers['x-frame-options']).toBe('DENY');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['referrer-policy']).toBe('no-referrer');
    // A self-signed certificate on a local network must stay acceptable: no HSTS pinning it.
    expect(response.headers['strict-transport-security']).toBeUndefined();
    return policy;
  }

  it('are on the web app: its start page, history-mode routes and its scripts', async () => {
    const nonces = new Set<string>();
    for (const url of ['/', '/index.html', '/sessions', '/capture/some-pairing-token']) {
      const page = await get(url);
      expect(page.statusCode, url).toBe(200);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      const policy = expectHardened(page);
      // Images, videos and result files the API signs (PUBLIC_URL), the QR code (data:), chosen pictures and
      // recordings (blob:).
      expect(policy.get('img-src')).toEqual(["'self'", PUBLIC_ORIGIN, 'data:', 'blob:']);
      expect(policy.get('media-src')).toEqual(["'self'", PUBLIC_ORIGIN, 'blob:']);
      expect(policy.get('connect-src')).toEqual(["'self'", PUBLIC_ORIGIN]);
      // Inline styles only with this answer's nonce, which the page hands to the app.
      const [self, nonceSource, ...others] = policy.get('style-src') ?? [];
      expect([self, others]).toEqual(["'self'", []]);
      const nonce = /^'nonce-([A-Za-z0-9+/]{22}==)'$/.exec(nonceSource)?.[1];
      expect(nonce, `a style nonce in ${nonceSource}`).toBeDefined();
      expect(page.body).toContain(`<meta property="csp-nonce" nonce="${nonce}" />`);
      nonces.add(nonce!);
    }
    expect(nonces.size, 'a fresh nonce for each page').toBe(4);
    const script = readdirSync(`${webDistDir}/assets`).find((name) => name.endsWith('.js'));
    const asset = await get(`/assets/${script}`);
    expect(asset.statusCode).toBe(200);
    expectHardened(asset);
  });

  it("are on a HEAD of the app's pages, answered as their GET without the body; a HEAD in the API still finds nothing", async () => {
    // Over HTTP too: Node's server, not the injector (whose versions differ on it), leaves out a HEAD's body.
    await test.app.listen({ port: 0, host: '127.0.0.1' });
    const address = test.app.server.address();
    const origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    for (const url of ['/', '/sessions']) {
      const [head, page] = [await test.call({ method: 'HEAD', url }), await get(url)];
      expect(head.statusCode, url).toBe(200);
      const overHttp = await fetch(`${origin}${url}`, { method: 'HEAD' });
      expect(overHttp.status, url).toBe(200);
      expect(await overHttp.text(), url).toBe('');
      expect(head.headers['content-type'], url).toBe(page.headers['content-type']);
      expect(head.headers['cache-control'], url).toBe('no-cache');
      expectHardened(head);
    }
    expect((await test.call({ method: 'HEAD', url: `${API_PREFIX}/no-such-call/` })).statusCode).toBe(404);
  });

  it('are on API answers, errors included', async () => {
    const info = await get(`${API_PREFIX}${instancePaths.info}`);
    expect(info.statusCode).toBe(200);
    expectHardened(info);
    const unauthorised = await get(`${API_PREFIX}${accountPaths.me}`);
    expect(unauthorised.statusCode).toBe(401);
    expectHardened(unauthorised);
    const missing = await get(`${API_PREFIX}/no-such-call/`);
    expect(missing.statusCode).toBe(404);
    expectHardened(missing);
  });

  it('are on the API docs page and its files', async () => {
    const page = await get(`${API_PREFIX}/docs/`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('swagger-ui-bundle.js');
    // Swagger UI's inline styles, which it cannot give a nonce; its scripts are as strict as the app's.
    expect(expectHardened(page).get('style-src')).toEqual(["'self'", "'unsafe-inline'"]);
    const bundle = await get(`${API_PREFIX}/docs/static/swagger-ui-bundle.js`);
    expect(bundle.statusCode).toBe(200);
    expectHardened(bundle);
  });
});

/** The entries of the build's .vite/manifest.json used here: each chunk's file and the chunks it imports statically. */
type Manifest = Record<string, { file: string; imports?: string[]; css?: string[] }>;

/**
 * Issue 24 "Speed": the web app's files are sent compressed as the browser accepts them, and those named after
 * their content are cached for good; the page loads neither the 3D viewer (three.js) nor the charts (ECharts).
 */
describe("the web app's files", () => {
  const manifest = () => JSON.parse(readFileSync(`${webDistDir}/.vite/manifest.json`, 'utf8')) as Manifest;
  /** The files the page loads at once: its entry chunk and every chunk that one imports statically, with their CSS. */
  function loadedAtOnce(): string[] {
    const chunks = manifest();
    const files = new Set<string>();
    const visit = (key: string) => {
      const chunk = chunks[key];
      if (files.has(chunk.file)) return;
      files.add(chunk.file);
      chunk.css?.forEach((css) => files.add(css));
      chunk.imports?.forEach(visit);
    };
    visit('index.html');
    return [...files];
  }

  it('are sent as Brotli or gzip when accepted, as they are otherwise, and fingerprinted ones cached for good', async () => {
    const files = loadedAtOnce();
    expect(files.some((file) => file.endsWith('.css'))).toBe(true);
    const decoders = { br: brotliDecompressSync, gzip: gunzipSync };
    for (const file of files.filter((name) => statSync(`${webDistDir}/${name}`).size > 1024)) {
      const original = readFileSync(`${webDistDir}/${file}`);
      for (const [encoding, decode] of Object.entries(decoders)) {
        const sent = await get(`/${file}`, { 'accept-encoding': encoding });
        expect(sent.statusCode, file).toBe(200);
        expect(sent.headers['content-encoding'], file).toBe(encoding);
        expect(sent.rawPayload.length, `${file} compressed`).toBeLessThan(original.length);
        expect(decode(sent.rawPayload).equals(original), `${file} decoded as ${encoding}`).toBe(true);
        expect(sent.headers['content-type'], file).toMatch(file.endsWith('.js') ? /javascript/ : /^text\/css/);
        expect(sent.headers['cache-control']).toBe('public, max-age=31536000, immutable');
        expect(sent.headers.vary).toMatch(/accept-encoding/i);
      }
      const plain = await get(`/${file}`);
      expect(plain.headers['content-encoding'], file).toBeUndefined();
      expect(plain.rawPayload.equals(original), file).toBe(true);
      expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    }
    // The compressed copies stand in for their files; they have no address of their own.
    expect((await get(`/${files.find((file) => file.endsWith('.css'))}.br`)).headers['content-type']).toMatch(
      /^text\/html/,
    );
  });

  it('whose names stay, and the page, are asked for again on each load', async () => {
    const logo = await get('/kinetrace-logo.svg', { 'accept-encoding': 'br, gzip' });
    expect(logo.statusCode).toBe(200);
    expect(logo.headers['cache-control']).toBe('no-cache');
    for (const url of ['/', '/sessions']) expect((await get(url)).headers['cache-control'], url).toBe('no-cache');
  });

  it('the page loads at once include neither three.js nor ECharts, which the build holds', () => {
    // Both keep these strings in their minified code: three.js prefixes its messages, ECharts its warnings.
    const markers = { 'three.js': 'THREE.', ECharts: '[ECharts] ' };
    const atOnce = loadedAtOnce().filter((file) => file.endsWith('.js'));
    const all = readdirSync(`${webDistDir}/assets`).filter((name) => name.endsWith('.js'));
    const text = (file: string) => readFileSync(`${webDistDir}/${file}`, 'utf8');
    for (const [library, marker] of Object.entries(markers)) {
      expect(
        all.some((name) => text(`assets/${name}`).includes(marker)),
        `${library} in the build`,
      ).toBe(true);
      for (const file of atOnce) expect(text(file).includes(marker), `${library} in ${file}`).toBe(false);
    }
  });
});
