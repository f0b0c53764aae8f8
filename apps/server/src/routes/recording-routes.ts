import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  fieldErrorsFromZod,
  importVideosFieldsSchema,
  KEYPOINTS_2D_LIMITS,
  recordingStatusSchema,
  recordQuerySchema,
  recordResponseSchema,
  trialSchema,
  uuidIdParams,
} from '@kinetrace/contracts';
import { requireVerified } from '../http/authentication.ts';
import { invalidFields } from '../http/http-errors.ts';
import type { ImportStaging } from '../services/import-staging.ts';
import type { RecordingService } from '../services/recording-service.ts';
import type { TrialService } from '../services/trial-service.ts';
import { withUploadedFiles } from './uploaded-files.ts';

const tags = ['Recording'];
/** Up to 16 videos, each at most a long phone recording, and their 2D keypoints. */
const IMPORT_LIMITS = { fileSize: 4 * 1024 ** 3, files: 16 + KEYPOINTS_2D_LIMITS.maxImportFiles, fields: 5 };

/** §7 recording calls of the researcher's page (owner only). */
export function registerRecordingRoutes(
  app: FastifyInstance,
  recording: RecordingService,
  trials: TrialService,
  staging: ImportStaging,
): void {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get(
    '/sessions/:id/record/',
    { schema: { tags, params: uuidIdParams, querystring: recordQuerySchema, response: { 200: recordResponseSchema } } },
    (request) => recording.record(requireVerified(request), request.params.id, request.query),
  );

  api.get(
    '/sessions/:id/status/',
    {
      schema: {
        tags,
        params: uuidIdParams,
        querystring: z.object({ ret_session: z.enum(['true', 'false']).optional() }),
        response: { 200: recordingStatusSchema },
      },
    },
    (request) => recording.status(requireVerified(request), request.params.id, request.query.ret_session === 'true'),
  );

  api.get(
    '/sessions/:id/stop/',
    { schema: { tags, params: uuidIdParams, response: { 200: z.object({ status: z.string() }) } } },
    (request) => recording.stop(requireVerified(request), request.params.id),
  );

  api.get(
    '/sessions/:id/cancel_trial/',
    { schema: { tags, params: uuidIdParams, response: { 200: z.object({ status: z.literal('ready') }) } } },
    (request) => recording.cancel(requireVerified(request), request.params.id),
  );

  api.get(
    '/sessions/:id/get_n_calibrated_cameras/',
    { schema: { tags, params: uuidIdParams, response: { 200: z.object({ data: z.number().int() }) } } },
    async (request) => {
      const context = requireVerified(request);
      await recording.status(context, request.params.id, false);
      return { data: await recording.calibratedCameras(request.params.id) };
    },
  );

  for (const [path, trialName] of [
    ['calibration_img', 'calibration'],
    ['neutral_img', 'neutral'],
  ] as const) {
    api.get(
      `/sessions/:id/${path}/`,
      {
        schema: {
          tags,
          params: uuidIdParams,
          response: { 200: z.object({ status: z.string(), images: z.array(z.string()) }) },
        },
      },
      (request) => recording.images(requireVerified(request), request.params.id, trialName),
    );
  }

  api.post(
    '/sessions/:id/import/',
    { schema: { tags, params: uuidIdParams, consumes: ['multipart/form-data'], response: { 200: trialSchema } } },
    (request) => {
      const context = requireVerified(request);
      return staging.receive(context, request.params.id, (folder) =>
        withUploadedFiles(request, ['video', 'keypoints'], IMPORT_LIMITS, folder, async (uploads, fields) => {
          const parsed = importVideosFieldsSchema.safeParse(fields);
          if (!parsed.success) throw invalidFields(fieldErrorsFromZod(parsed.error));
          const trial = await recording.importVideos(
            context,
            request.params.id,
            parsed.data.name,
            uploads.filter((upload) => upload.field === 'video'),
            parsed.data.device_model,
            {
              files: uploads.filter((upload) => upload.field === 'keypoints'),
              keypointSet: parsed.data.keypoint_set,
            },
          );
          return trials.get({ user: context.user }, trial.id);
        }),
      );
    },
  );
}
