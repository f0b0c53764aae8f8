import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { text } from 'node:stream/consumers';
import { afterAll, describe, expect, it } from 'vitest';
import { createLocalFileStore } from '../src/storage/local-file-store.ts';

/** The embedded file store, where a result replaced by a re-run is removed while it may be served. */
describe('local file store', async () => {
  const root = await mkdtemp(join(tmpdir(), 'kinetrace-files-'));
  const files = createLocalFileStore(root);
  afterAll(() => rm(root, { recursive: true, force: true }));

  it('serves a file removed after it was opened whole, and a removed file as absent', async () => {
    await files.put('trials/1/result.json', Buffer.from('{"stride_length":1.31}'));
    const opened = await files.read('trials/1/result.json');
    // Removed at once, as a re-run's job may between the route's read and the reply's first byte.
    rmSync(join(root, 'trials/1/result.json'));
    expect(opened?.sizeBytes).toBe(22);
    expect(await text(opened!.stream)).toBe('{"stride_length":1.31}');
    expect(await files.read('trials/1/result.json')).toBeNull();
    expect(await files.size('trials/1/result.json')).toBeNull();
  });

  it('reads a byte range, and a folder as no file', async () => {
    await files.put('trials/2/walk.mot', Buffer.from('time\thip_flexion_r\n'));
    const range = await files.read('trials/2/walk.mot', { start: 5, end: 15 });
    expect(await text(range!.stream)).toBe('hip_flexion');
    expect(await files.read('trials/2')).toBeNull();
  });
});
