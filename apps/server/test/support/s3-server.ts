import { mkdtempSync, rmSync } from 'node:fs';
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { CreateBucketCommand, ListObjectsCommand, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { s3ClientConfig } from '../../src/storage/s3-file-store.ts';
import type { ObjectStoreConfig } from '../../src/config.ts';

/** s3rver's fixed key pair. */
const CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

interface KoaContext {
  method: string;
  path: string;
  query: Record<string, string | undefined>;
  status: number;
  type: string;
  body: unknown;
}

/**
 * The two multipart calls tus's S3 store makes that s3rver lacks: ListParts (the offset a resumed
 * upload continues from) and AbortMultipartUpload (a cancelled or expired upload). Parts are where
 * s3rver's own UploadPart writes them: `<uploads folder>/<upload id>/<part number>` with an `.md5` beside.
 */
function multipartCompletion(server: S3rver) {
  const store = (
    server as unknown as { store: { getResourcePath(bucket: string, key: undefined, kind: string): string } }
  ).store;
  return async (context: KoaContext, next: () => Promise<void>) => {
    const uploadId = context.query.uploadId;
    const [, bucket, ...key] = context.path.split('/');
    if (!uploadId || key.length === 0 || !['GET', 'DELETE'].includes(context.method)) return next();
    const folder = join(store.getResourcePath(bucket, undefined, 'uploads'), uploadId);
    const names = await readdir(folder).catch(() => null);
    if (!names) {
      context.status = 404;
      context.type = 'application/xml';
      context.body = '<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchUpload</Code></Error>';
      return;
    }
    if (context.method === 'DELETE') {
      await rm(folder, { recursive: true, force: true });
      context.status = 204;
      return;
    }
    const numbers = names
      .filter((name) => /^\d+$/.test(name))
      .map(Number)
      .sort((a, b) => a - b);
    const parts = await Promise.all(
      numbers.map(async (number) => {
        const [info, md5] = await Promise.all([
          stat(join(folder, String(number))),
          readFile(join(folder, `${number}.md5`), 'utf8'),
        ]);
        return `<Part><PartNumber>${number}</PartNumber><ETag>"${md5}"</ETag><Size>${info.size}</Size></Part>`;
      }),
    );
    context.status = 200;
    context.type = 'application/xml';
    context.body =
      '<?xml version="1.0" encoding="UTF-8"?><ListPartsResult>' +
      `<Bucket>${bucket}</Bucket><Key>${key.join('/')}</Key><UploadId>${uploadId}</UploadId>` +
      `<IsTruncated>false</IsTruncated>${parts.join('')}</ListPartsResult>`;
  };
}

export interface TestS3Server {
  endpoint: string;
  /** A new empty bucket and the server environment that selects it. */
  newBucket(): Promise<{ bucket: string; env: Record<string, string>; config: ObjectStoreConfig }>;
  /** Every key in the bucket, sorted. */
  keys(bucket: string): Promise<string[]>;
  client: S3Client;
  close(): Promise<void>;
}

/** One s3rver on loopback for a test file, its buckets made as the tests need them. */
export async function startS3Server(): Promise<TestS3Server> {
  const directory = mkdtempSync(join(tmpdir(), 'kinetrace-s3rver-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory });
  (server as unknown as { middleware: unknown[] }).middleware.unshift(multipartCompletion(server));
  const { port } = (await server.run()) as AddressInfo;
  const endpoint = `http://127.0.0.1:${port}`;
  const configOf = (bucket: string): ObjectStoreConfig => ({
    bucket,
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: CREDENTIALS,
  });
  const client = new S3Client(s3ClientConfig(configOf('admin')));
  return {
    endpoint,
    client,
    async newBucket() {
      const bucket = `kinetrace-${randomBytes(4).toString('hex')}`;
      await client.send(new CreateBucketCommand({ Bucket: bucket }));
      return {
        bucket,
        config: configOf(bucket),
        env: {
          S3_BUCKET: bucket,
          AWS_ENDPOINT_URL_S3: endpoint,
          AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
          AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
          S3_FORCE_PATH_STYLE: 'true',
        },
      };
    },
    async keys(bucket) {
      // Listed in pages of 1000 after a marker (ListObjects v1): s3rver's ListObjectsV2 answers a listing of
      // more than 1000 keys with InternalError, its continuation token being DES, which Node's OpenSSL 3 refuses.
      const keys: string[] = [];
      let marker: string | undefined;
      for (;;) {
        const page = await client.send(new ListObjectsCommand({ Bucket: bucket, Marker: marker }));
        keys.push(...(page.Contents ?? []).map((object) => object.Key!));
        if (!page.IsTruncated) return keys.sort();
        marker = keys[keys.length - 1];
      }
    },
    async close() {
      client.destroy();
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
