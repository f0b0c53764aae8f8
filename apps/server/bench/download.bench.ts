/**
 * A multi-GB session downloads as a valid zip while the server's memory stays flat: builds a session
 * with four 1.25 GB camera videos (sparse files), downloads its archive over real HTTP, checks the
 * zip (every entry's CRC and size), and prints throughput and the process's peak RSS.
 */
import { createWriteStream, mkdirSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import yauzl from 'yauzl';
import { schema } from '@kinetrace/db';
import type { Session } from '@kinetrace/contracts';
import { authHeader, startTestApp, verifiedUser } from '../test/support/test-app.ts';

const CAMERAS = 4;
const VIDEO_BYTES = 1.25 * 1024 ** 3;

const test = await startTestApp('pglite', { LOG_LEVEL: 'warn' });
const zipPath = join(tmpdir(), `kinetrace-bench-${process.pid}.zip`);
try {
  const user = await verifiedUser(test);
  const session = (
    (await test.call({ method: 'GET', url: '/api/sessions/new/', headers: authHeader(user.token) })).json() as Session[]
  )[0];
  const { db } = test.backends.database;
  const [trial] = await db
    .insert(schema.trials)
    .values({ sessionId: session.id, name: 'long_walk', status: 'done' })
    .returning();
  for (let camera = 0; camera < CAMERAS; camera++) {
    const key = `sessions/${session.id}/trials/${trial.id}/videos/phone-${camera}.mp4`;
    const path = join(test.dataDir, 'files', key);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, '');
    truncateSync(path, VIDEO_BYTES);
    await db.insert(schema.trialVideos).values({ trialId: trial.id, deviceId: `phone-${camera}`, storageKey: key });
  }

  const address = await test.app.listen({ port: 0, host: '127.0.0.1' });
  const rssBefore = process.memoryUsage().rss;
  const started = performance.now();
  const response = await fetch(`${address}/api/sessions/${session.id}/download/`, { headers: authHeader(user.token) });
  if (!response.ok || !response.body) throw new Error(`download failed: ${response.status}`);
  let peakRss = rssBefore;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 100);
  await pipeline(Readable.fromWeb(response.body as never), createWriteStream(zipPath));
  clearInterval(sampler);
  const seconds = (performance.now() - started) / 1000;
  const zipBytes = statSync(zipPath).size;

  const entries = await new Promise<{ name: string; size: number }[]>((resolve, reject) => {
    yauzl.open(zipPath, { lazyEntries: true, validateEntrySizes: true }, (error, zip) => {
      if (error || !zip) return reject(error);
      const seen: { name: string; size: number }[] = [];
      zip.on('entry', (entry: yauzl.Entry) => {
        zip.openReadStream(entry, (streamError, stream) => {
          if (streamError || !stream) return reject(streamError);
          let size = 0;
          stream.on('data', (chunk: Buffer) => (size += chunk.length));
          stream.on('end', () => {
            seen.push({ name: entry.fileName, size });
            zip.readEntry();
          });
          stream.on('error', reject);
        });
      });
      zip.on('end', () => resolve(seen));
      zip.on('error', reject);
      zip.readEntry();
    });
  });
  const videos = entries.filter((entry) => entry.name.endsWith('.mp4'));
  if (videos.length !== CAMERAS || videos.some((entry) => entry.size !== VIDEO_BYTES))
    throw new Error('zip content is wrong');

  const gb = (bytes: number) => (bytes / 1024 ** 3).toFixed(2);
  console.log(
    `session archive: ${CAMERAS} videos, ${gb(CAMERAS * VIDEO_BYTES)} GB of video -> ${gb(zipBytes)} GB zip (zip64), valid`,
  );
  console.log(`download: ${seconds.toFixed(1)} s, ${(zipBytes / 1024 ** 2 / seconds).toFixed(0)} MB/s`);
  console.log(
    `server process RSS: ${(rssBefore / 1024 ** 2).toFixed(0)} MB before, peak ${(peakRss / 1024 ** 2).toFixed(0)} MB during (+${((peakRss - rssBefore) / 1024 ** 2).toFixed(0)} MB)`,
  );
} finally {
  rmSync(zipPath, { force: true });
  await test.close();
}
