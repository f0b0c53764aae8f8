import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FileStore } from '../src/storage/file-store.ts';
import { createLocalFileStore } from '../src/storage/local-file-store.ts';
import { openS3Storage } from '../src/storage/s3-storage.ts';
import { startS3Server, type TestS3Server } from './support/s3-server.ts';

/** How each implementation is made, and taken down after its run of the contract. */
const implementations: { name: string; open(): Promise<{ files: FileStore; close(): Promise<void> }> }[] = [
  {
    name: 'local disk',
    async open() {
      const root = await mkdtemp(join(tmpdir(), 'kinetrace-files-'));
      return { files: createLocalFileStore(root), close: () => rm(root, { recursive: true, force: true }) };
    },
  },
  {
    name: 'S3-compatible store (s3rver)',
    async open() {
      const { config } = await s3.newBucket();
      const { files, close } = await openS3Storage(config, join(tmpdir(), 'kinetrace-unused'));
      return { files, close: async () => close() };
    },
  },
];

let s3: TestS3Server;
beforeAll(async () => {
  s3 = await startS3Server();
});
afterAll(() => s3?.close());

/** What every FileStore must do: the services and routes rely on nothing else. */
describe.each(implementations)('file store contract: $name', (implementation) => {
  let files: FileStore;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ files, close } = await implementation.open());
  });
  afterAll(() => close?.());

  it('stores a buffer and a stream, and reads them back whole with their sizes', async () => {
    await files.put('trials/1/result.json', Buffer.from('{"stride_length":1.31}'));
    const video = Buffer.alloc(6 * 1024 * 1024 + 5, 7); // past one multipart part (5 MiB)
    await files.put('trials/1/videos/cam01.mp4', Readable.from([video.subarray(0, 1000), video.subarray(1000)]));
    const json = await files.read('trials/1/result.json');
    expect(json?.sizeBytes).toBe(22);
    expect(await text(json!.stream)).toBe('{"stride_length":1.31}');
    expect(await files.size('trials/1/videos/cam01.mp4')).toBe(video.length);
    const chunks: Buffer[] = [];
    for await (const chunk of (await files.read('trials/1/videos/cam01.mp4'))!.stream) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).equals(video)).toBe(true);
  });

  it('replaces a file put again under the same key', async () => {
    await files.put('trials/5/walk.trc', Buffer.from('first'));
    await files.put('trials/5/walk.trc', Buffer.from('second run'));
    expect(await text((await files.read('trials/5/walk.trc'))!.stream)).toBe('second run');
  });

  it('serves a file removed after it was opened whole, and a removed file as absent', async () => {
    await files.put('trials/1/result.json', Buffer.from('{"stride_length":1.31}'));
    const opened = await files.read('trials/1/result.json');
    // Removed at once, as a re-run's job may between the route's read and the reply's first byte.
    await files.remove('trials/1/result.json');
    expect(opened?.sizeBytes).toBe(22);
    expect(await text(opened!.stream)).toBe('{"stride_length":1.31}');
    expect(await files.read('trials/1/result.json')).toBeNull();
    expect(await files.size('trials/1/result.json')).toBeNull();
    await files.remove('trials/1/result.json'); // removing what is gone is no error
  });

  it('reads a byte range with the whole size, and a folder as no file', async () => {
    await files.put('trials/2/walk.mot', Buffer.from('time\thip_flexion_r\n'));
    const range = await files.read('trials/2/walk.mot', { start: 5, end: 15 });
    expect(range?.sizeBytes).toBe(19);
    expect(await text(range!.stream)).toBe('hip_flexion');
    expect(await text((await files.read('trials/2/walk.mot', { start: 18, end: 18 }))!.stream)).toBe('\n');
    expect(await files.read('trials/2')).toBeNull();
    expect(await files.size('trials/2')).toBeNull();
  });

  it('removes a whole folder, and only that folder', async () => {
    for (const key of ['downloads/7/a.zip', 'downloads/7/sub/b.json', 'downloads/70/c.zip'])
      await files.put(key, Buffer.from(key));
    await files.removeTree('downloads/7');
    expect(await files.size('downloads/7/a.zip')).toBeNull();
    expect(await files.size('downloads/7/sub/b.json')).toBeNull();
    expect(await files.size('downloads/70/c.zip')).toBe('downloads/70/c.zip'.length);
    await files.removeTree('downloads/missing');
  });

  it('refuses a key that could leave the store', async () => {
    for (const key of ['../outside', 'trials/../../etc/passwd', '/absolute', 'trials//double', 'trials/./x'])
      await expect(files.put(key, Buffer.from('x')), key).rejects.toThrow('Invalid storage key');
  });
});
