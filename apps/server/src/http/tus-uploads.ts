import type { FastifyInstance } from 'fastify';
import { Server as TusServer, type Locker, type Upload } from '@tus/server';
import { API_PREFIX, capturePaths, messages, PAIRING_TOKEN_HEADER } from '@kinetrace/contracts';
import type { CaptureService } from '../services/capture-service.ts';
import { hashRandomToken } from '../services/secrets.ts';
import type { UploadStaging } from '../storage/upload-staging.ts';
import { HttpError } from './http-errors.ts';

/** Phone videos are large but bounded: 60 s of 4K at a phone's bitrate stays well under this. */
const MAX_VIDEO_BYTES = 4 * 1024 ** 3;

/** What tus sends back for a refused upload: the status and a `{ detail }` body like every other error. */
function tusError(error: unknown): { status_code: number; body: string } {
  if (error instanceof HttpError) return { status_code: error.statusCode, body: JSON.stringify(error.body) };
  throw error;
}

/** Whether a request carries the pairing token its upload was created with (hashes compared: no timing leak). */
function presentsToken(request: Request, pairingToken: string | null | undefined): boolean {
  const presented = request.headers.get(PAIRING_TOKEN_HEADER);
  return !!presented && !!pairingToken && hashRandomToken(presented) === hashRandomToken(pairingToken);
}

/** A request without its upload's credential learns nothing, not even whether the upload exists. */
const notPaired = { status_code: 404, body: JSON.stringify({ detail: messages.pairingInvalid }) };

/**
 * Resumable video uploads with the tus protocol (and the phones' 2D keypoints, which go before their videos): a dropped connection or a reloaded page resumes
 * from the last byte the server has, so a video arrives whole and is stored once. Chunks are staged
 * in `staging` (services/staged-uploads.ts says how long); a complete upload goes through the capture
 * service (probe, store, hand-off).
 */
export function registerTusUploads(
  app: FastifyInstance,
  capture: CaptureService,
  staging: UploadStaging,
  locker: Locker,
  trustProxy: boolean,
): void {
  const { datastore } = staging;
  const tus = new TusServer({
    path: `${API_PREFIX}${capturePaths.uploads.replace(/\/$/, '')}`,
    datastore,
    locker,
    maxSize: MAX_VIDEO_BYTES,
    respectForwardedHeaders: trustProxy,
    // Every method needs the session's pairing token in PAIRING_TOKEN_HEADER: a creation the one its
    // metadata names, the others (offset, resume, cancel) the one the upload was created with.
    async onIncomingRequest(request, uploadId) {
      if (request.method === 'POST') return;
      // tus makes the ids; one from a request's path that is not one of them names no upload (nor any other object).
      if (!/^[\w-]+$/.test(uploadId)) throw notPaired;
      const upload = await datastore.getUpload(uploadId).catch(() => undefined);
      if (!presentsToken(request, upload?.metadata?.pairing_token)) throw notPaired;
    },
    async onUploadCreate(request, upload: Upload) {
      if (!presentsToken(request, upload.metadata?.pairing_token)) throw notPaired;
      await capture.uploadTarget(upload.metadata ?? {}, upload.size).catch((error: unknown) => {
        throw tusError(error);
      });
      return {};
    },
    async onUploadFinish(_request, upload: Upload) {
      try {
        const result = await capture.finishUpload(upload.metadata ?? {}, await staging.receivedFile(upload.id));
        if (!result.stored) {
          throw {
            status_code: result.reason === 'duplicate' ? 410 : 422,
            body: JSON.stringify({ detail: result.message }),
          };
        }
        return {};
      } catch (error) {
        throw error instanceof HttpError ? tusError(error) : error;
      } finally {
        await staging.remove(upload.id);
      }
    },
  });

  app.register(async (scope) => {
    // tus reads the request body itself: Fastify must leave the stream alone.
    scope.addContentTypeParser('application/offset+octet-stream', (_request, _payload, done) => done(null));
    const handler = async (
      request: { raw: import('node:http').IncomingMessage },
      reply: { hijack(): void; raw: import('node:http').ServerResponse },
    ) => {
      // tus's concatenation (an upload in parallel parts) is not offered: a 400 saying so, not tus's 501.
      if (request.raw.headers['upload-concat'] !== undefined)
        throw new HttpError(400, { detail: 'Parallel uploads are not supported: send each video as one upload.' });
      reply.hijack();
      await tus.handle(request.raw, reply.raw);
    };
    const base = `${API_PREFIX}${capturePaths.uploads}`;
    for (const url of [base, `${base}*`]) {
      scope.route({
        method: ['POST', 'PATCH', 'HEAD', 'OPTIONS', 'DELETE', 'GET'],
        url,
        handler,
        schema: { hide: true },
      });
    }
  });
}
