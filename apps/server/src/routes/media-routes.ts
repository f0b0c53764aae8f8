import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { messages, serialId } from '@kinetrace/contracts';
import { forbidden, HttpError, notFound } from '../http/http-errors.ts';
import type { DownloadService } from '../services/download-service.ts';
import { grantCodeOf, MEDIA_NAME_SEGMENT, type MediaUrlSigner } from '../services/media-urls.ts';
import type { OpenCapSessions } from '../services/opencap-session.ts';
import { userFilesPrefix } from '../services/storage-keys.ts';
import type { ByteRange, FileStore } from '../storage/file-store.ts';

const contentTypes: Record<string, string> = {
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
  bmp: 'image/bmp',
  mp4: 'video/mp4',
  mov: 'video/quicktime',
  webm: 'video/webm',
  json: 'application/json',
  zip: 'application/zip',
  trc: 'text/plain; charset=utf-8',
  mot: 'text/plain; charset=utf-8',
  osim: 'application/xml',
  yaml: 'text/yaml; charset=utf-8',
};
const contentTypeOf = (key: string) =>
  contentTypes[key.split('.').at(-1)?.toLowerCase() ?? ''] ?? 'application/octet-stream';

/** One `bytes=start-end` range (what video players ask for); null when absent, 416 when unsatisfiable. */
function parseRange(header: string | undefined, sizeBytes: number): ByteRange | null {
  const match = header ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null;
  if (!match || (match[1] === '' && match[2] === '')) return null;
  const start = match[1] === '' ? Math.max(0, sizeBytes - Number(match[2])) : Number(match[1]);
  const end = match[1] === '' || match[2] === '' ? sizeBytes - 1 : Math.min(Number(match[2]), sizeBytes - 1);
  if (start > end || start >= sizeBytes) {
    throw new HttpError(416, { detail: 'Range not satisfiable.' }, { 'content-range': `bytes */${sizeBytes}` });
  }
  return { start, end };
}

async function sendStored(
  reply: FastifyReply,
  files: FileStore,
  key: string,
  rangeHeader: string | undefined,
  cacheControl: string,
) {
  const sizeBytes = await files.size(key);
  if (sizeBytes === null) throw notFound(messages.notFound);
  const range = parseRange(rangeHeader, sizeBytes);
  const file = await files.read(key, range ?? undefined);
  if (!file) throw notFound(messages.notFound);
  reply
    .type(contentTypeOf(key))
    .header('accept-ranges', 'bytes')
    .header('cache-control', cacheControl)
    .header('x-content-type-options', 'nosniff');
  if (key.endsWith('.zip')) reply.header('content-disposition', `attachment; filename="${key.split('/').at(-1)}"`);
  if (range) {
    reply
      .code(206)
      .header('content-range', `bytes ${range.start}-${range.end}/${sizeBytes}`)
      .header('content-length', range.end - range.start + 1);
  } else reply.header('content-length', sizeBytes);
  return reply.send(file.stream);
}

/**
 * Stored files for <img>, <video> and downloads. Profile pictures are public; everything else needs
 * a URL signed by the server for someone allowed to read it, and served while they still are (a
 * prepared archive while its asker may still download the same archive).
 */
export function registerMediaRoutes(
  app: FastifyInstance,
  files: FileStore,
  signer: MediaUrlSigner,
  downloads: Pick<DownloadService, 'stillServes'>,
  openCap: Pick<OpenCapSessions, 'derivedFile'>,
): void {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get(
    '/media/profile-pictures/:userId/:fileName',
    {
      schema: {
        tags: ['Media'],
        params: z.object({ userId: serialId, fileName: z.string().regex(/^[a-f0-9]{16}\.[a-z]{3,4}$/) }),
      },
    },
    (request, reply) =>
      sendStored(
        reply,
        files,
        `${userFilesPrefix(request.params.userId)}/profile-picture/${request.params.fileName}`,
        request.headers.range,
        'public, max-age=31536000, immutable',
      ),
  );

  api.get(
    '/media/files/*',
    {
      schema: {
        tags: ['Media'],
        params: z.object({ '*': z.string().min(1).max(1000) }),
        querystring: z.object({
          expires: z.coerce.number().int(),
          signature: z.string().max(200),
          access: z.string().max(100).default(''),
        }),
      },
    },
    async (request, reply) => {
      // `<stored key>/<id>-<file name>`: the last segment only names the file for the client.
      const path = request.params['*'];
      const key = path.slice(0, path.lastIndexOf('/'));
      if (!MEDIA_NAME_SEGMENT.test(path.slice(key.length + 1)) || !(await signer.allows(key, request.query)))
        throw forbidden('This link has expired. Reload the page.');
      if (key.startsWith('downloads/') && !(await downloads.stillServes(key)))
        throw forbidden('This download is no longer available. Please prepare it again.');
      const derived = await openCap.derivedFile(key, grantCodeOf(request.query.access)!);
      if (derived)
        return reply
          .type(contentTypeOf(key))
          .header('cache-control', 'private, no-cache')
          .header('x-content-type-options', 'nosniff')
          .send(derived);
      return sendStored(reply, files, key, request.headers.range, 'private, max-age=3600');
    },
  );
}
