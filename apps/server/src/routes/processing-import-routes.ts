import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  fieldErrorsFromZod,
  importCalibrationResponseSchema,
  lensCalibrationFieldsSchema,
  lensCalibrationSchema,
  lensCalibrationsResponseSchema,
  processingPaths,
  sessionSchema,
  uuidIdParams,
} from '@kinetrace/contracts';
import { requireVerified } from '../http/authentication.ts';
import { invalidFields } from '../http/http-errors.ts';
import type { CalibrationImportService } from '../services/calibration-import-service.ts';
import type { ImportStaging } from '../services/import-staging.ts';
import type { LensCalibrationService } from '../services/lens-calibration-service.ts';
import type { SessionService } from '../services/session-service.ts';
import { withUploadedFiles } from './uploaded-files.ts';

const tags = ['Processing'];
/** Camera files are text or small pickles; one per camera at most. */
const CALIBRATION_LIMITS = { fileSize: 20 * 1024 ** 2, files: 64, fields: 5 };
/** A lens calibration takes 10-30 photos of the board, or one JSON file. */
const LENS_LIMITS = { fileSize: 40 * 1024 ** 2, files: 60, fields: 10 };

/** Using the app without phones (import a calibration, next subject) and lens calibrations per device model (issue 9). */
export function registerProcessingImportRoutes(
  app: FastifyInstance,
  services: {
    calibrationImport: CalibrationImportService;
    sessions: SessionService;
    lenses: LensCalibrationService;
    staging: ImportStaging;
  },
): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { calibrationImport, sessions, lenses, staging } = services;

  api.post(
    processingPaths.importCalibration(':id'),
    {
      schema: {
        tags,
        params: uuidIdParams,
        consumes: ['multipart/form-data'],
        response: { 200: importCalibrationResponseSchema },
      },
    },
    (request) => {
      const context = requireVerified(request);
      return staging.receive(context, request.params.id, (folder) =>
        withUploadedFiles(request, 'file', CALIBRATION_LIMITS, folder, (files) =>
          calibrationImport.importCalibration(context, request.params.id, files),
        ),
      );
    },
  );

  api.get(
    processingPaths.newSubject(':id'),
    { schema: { tags, params: uuidIdParams, response: { 200: z.array(sessionSchema) } } },
    async (request) => [await sessions.newSubject(requireVerified(request), request.params.id)],
  );

  api.get(
    processingPaths.lensCalibrations,
    { schema: { tags, response: { 200: lensCalibrationsResponseSchema } } },
    (request) => lenses.list(requireVerified(request)),
  );

  api.post(
    processingPaths.lensCalibrations,
    { schema: { tags, consumes: ['multipart/form-data'], response: { 200: lensCalibrationSchema } } },
    (request) => {
      const context = requireVerified(request);
      return staging.receive(context, null, (folder) =>
        withUploadedFiles(request, 'file', LENS_LIMITS, folder, (files, fields) => {
          const parsed = lensCalibrationFieldsSchema.safeParse(fields);
          if (!parsed.success) throw invalidFields(fieldErrorsFromZod(parsed.error));
          return lenses.upload(context, parsed.data, files);
        }),
      );
    },
  );
}
