/**
 * The web app's first load (issue 24 "Speed"): what a browser with an empty cache downloads to show the sign-in
 * page, as the server sends it. The page from /login, then every file it names (its entry script, the scripts
 * it preloads, its stylesheet, its icon), each asked for as a browser asks (Accept-Encoding: gzip, deflate, br,
 * zstd). Prints each file's bytes as sent and once decoded, its Content-Encoding and Cache-Control, and the
 * totals; then what a second visit downloads again, every file not marked immutable.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { startTestApp } from '../../server/test/support/test-app.ts';

if (!existsSync(join(import.meta.dirname, '../dist/index.html')))
  throw new Error('Build the web app first (npm run build:web).');

const BROWSER_ACCEPT_ENCODING = 'gzip, deflate, br, zstd';

interface Download {
  url: string;
  sent: number;
  decoded: number;
  encoding: string;
  cacheControl: string;
}

const decoders: Record<string, (body: Buffer) => Buffer> = {
  identity: (body) => body,
  br: brotliDecompressSync,
  gzip: gunzipSync,
};

/** The files the page's markup makes the browser fetch at once: its scripts and links (not its anchors). */
function filesNamedBy(html: string): string[] {
  const tags = html.match(/<(script|link)\b[^>]*>/g) ?? [];
  return tags.flatMap((tag) => /\b(?:src|href)="([^"]+)"/.exec(tag)?.[1] ?? []);
}

const test = await startTestApp('pglite', { LOG_LEVEL: 'warn' });
try {
  const download = async (url: string): Promise<Download> => {
    const response = await test.call({ method: 'GET', url, headers: { 'accept-encoding': BROWSER_ACCEPT_ENCODING } });
    if (response.statusCode !== 200) throw new Error(`${url}: ${response.statusCode}`);
    const encoding = String(response.headers['content-encoding'] ?? 'identity');
    const decode = decoders[encoding];
    if (!decode) throw new Error(`${url}: unexpected Content-Encoding ${encoding}`);
    return {
      url,
      sent: response.rawPayload.length,
      decoded: decode(response.rawPayload).length,
      encoding,
      cacheControl: String(response.headers['cache-control'] ?? '(none)'),
    };
  };
  const page = await download('/login');
  const html = (await test.call({ method: 'GET', url: '/login' })).body;
  const downloads = [page, ...(await Promise.all(filesNamedBy(html).map(download)))];

  const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`.padStart(10);
  console.log(`${'file'.padEnd(48)} ${'sent'.padStart(10)} ${'decoded'.padStart(10)}  encoding  cache-control`);
  for (const file of downloads) {
    console.log(
      `${file.url.padEnd(48)} ${kb(file.sent)} ${kb(file.decoded)}  ${file.encoding.padEnd(8)}  ${file.cacheControl}`,
    );
  }
  const total = (files: Download[], size: (file: Download) => number) =>
    files.reduce((sum, file) => sum + size(file), 0);
  console.log(
    `first load of the sign-in page: ${kb(total(downloads, (file) => file.sent)).trim()} sent, ` +
      `${kb(total(downloads, (file) => file.decoded)).trim()} decoded, in ${downloads.length} files`,
  );
  const again = downloads.filter((file) => !/\bimmutable\b/.test(file.cacheControl));
  console.log(
    `second visit fetches or revalidates ${again.length} of them (not immutable): ` +
      `${kb(total(again, (file) => file.sent)).trim()} at most`,
  );
} finally {
  await test.close();
}
