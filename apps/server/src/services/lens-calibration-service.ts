import {
  CHECKERBOARD_DEFAULTS,
  importMessages,
  LENS_IMAGE_EXTENSIONS,
  LENS_MIN_VIEWS,
  messages,
  type LensCalibration,
  type LensCalibrationFields,
} from '@kinetrace/contracts';
import { invalidFields } from '../http/http-errors.ts';
import type {
  LensCalibrationRow,
  LensCalibrationsRepository,
  NewLensCalibration,
} from '../repositories/lens-calibrations-repository.ts';
import {
  UploadParseError,
  type ParseUpload,
  type UploadParserThreads,
} from '../upload-parsing/upload-parser-thread.ts';
import type { UploadParsers } from '../upload-parsing/upload-parsers.ts';
import { refusalMessage } from '../upload-parsing/upload-refusals.ts';
import type { AuthContext } from './auth-service.ts';
import type { UploadedFile } from './calibration-import-service.ts';

const isLensImage = (fileName: string) =>
  LENS_IMAGE_EXTENSIONS.some((extension) => fileName.toLowerCase().endsWith(extension));
const fileErrors = (...errors: string[]) => invalidFields({ file: errors });

const present = (row: LensCalibrationRow): LensCalibration => ({
  device_model: row.deviceModel,
  image_size: { width: row.imageWidth, height: row.imageHeight },
  rms_error_px: row.rmsErrorPx,
  created_at: row.updatedAt.toISOString(),
});

/** A `kinetrace calibrate` file: Kinetrace camera JSON with one camera (its RMS error in the metadata). */
async function lensFromJson(parse: ParseUpload, file: UploadedFile, deviceModel: string): Promise<NewLensCalibration> {
  const unreadable = importMessages.lensJsonUnreadable(file.fileName);
  let lens: Awaited<ReturnType<UploadParsers['lens-json']>>;
  try {
    lens = await parse('lens-json', { path: file.path });
  } catch (error) {
    throw fileErrors(refusalMessage(error, file.fileName, unreadable));
  }
  if (lens.cameras.length !== 1) throw fileErrors(unreadable);
  const [camera] = lens.cameras;
  return {
    deviceModel,
    imageSize: camera.imageSize,
    intrinsics: camera.intrinsics,
    distortion: camera.distortion,
    rmsErrorPx: lens.rmsPx,
  };
}

/** Zhang's calibration from board images, as `kinetrace calibrate --images` does (k3 fixed at 0: few views). */
async function lensFromImages(
  parse: ParseUpload,
  files: UploadedFile[],
  deviceModel: string,
  board: { rows: number; cols: number; squareSizeMm: number },
) {
  const views: Float64Array[] = [];
  let imageSize: { width: number; height: number } | undefined;
  for (const file of files) {
    const image = await parse('board-image', { path: file.path, rows: board.rows, cols: board.cols }).catch(
      (error: unknown) => {
        const tooLarge = error instanceof UploadParseError && error.parserError?.name === 'ImageTooLargeError';
        throw fileErrors(
          tooLarge
            ? importMessages.lensImageTooLarge(file.fileName)
            : refusalMessage(error, file.fileName, importMessages.lensImageUnreadable(file.fileName)),
        );
      },
    );
    if (imageSize && (imageSize.width !== image.width || imageSize.height !== image.height))
      throw fileErrors(importMessages.lensImageSizes(file.fileName));
    imageSize = { width: image.width, height: image.height };
    if (image.corners) views.push(image.corners);
  }
  if (!imageSize || views.length < LENS_MIN_VIEWS) {
    throw fileErrors(importMessages.lensTooFewViews(views.length, files.length, board.cols, board.rows));
  }
  const result = await parse('lens-intrinsics', { views, board, imageSize }).catch((error: unknown) => {
    if (error instanceof UploadParseError) throw fileErrors(importMessages.lensFailed);
    throw error;
  });
  if (![...result.intrinsics, ...result.distortion, result.rmsPx].every(Number.isFinite))
    throw fileErrors(importMessages.lensFailed);
  return {
    deviceModel,
    imageSize,
    intrinsics: result.intrinsics,
    distortion: result.distortion,
    rmsErrorPx: result.rmsPx,
  };
}

/**
 * Lens calibrations per device model, kept per user: a later board calibration of a phone of that
 * model takes its intrinsics and distortion from here instead of estimating them from one view.
 */
export function createLensCalibrationService(deps: {
  lenses: LensCalibrationsRepository;
  parsers: UploadParserThreads;
}) {
  const { lenses, parsers } = deps;
  return {
    async list(context: AuthContext): Promise<LensCalibration[]> {
      return (await lenses.ofUser(context.user.id)).map(present);
    },

    /** One `kinetrace calibrate` .json, or board images (the board's inner corners in `fields`, else the session defaults). */
    async upload(context: AuthContext, fields: LensCalibrationFields, files: UploadedFile[]): Promise<LensCalibration> {
      if (files.length === 0) throw fileErrors(messages.required);
      const unknown = files.find(
        (file) => !file.fileName.toLowerCase().endsWith('.json') && !isLensImage(file.fileName),
      );
      if (unknown) throw fileErrors(importMessages.lensFileType(unknown.fileName));
      const jsonFiles = files.filter((file) => file.fileName.toLowerCase().endsWith('.json'));
      if (jsonFiles.length > 0 && files.length > 1) throw fileErrors(importMessages.lensOneJson);
      const lens =
        jsonFiles.length === 1
          ? await parsers.withThread('files', (parse) => lensFromJson(parse, jsonFiles[0], fields.device_model))
          : await parsers.withThread('images', (parse) =>
              lensFromImages(parse, files, fields.device_model, {
                rows: fields.cb_rows ?? CHECKERBOARD_DEFAULTS.rows,
                cols: fields.cb_cols ?? CHECKERBOARD_DEFAULTS.cols,
                squareSizeMm: fields.cb_square ?? CHECKERBOARD_DEFAULTS.squareSizeMm,
              }),
            );
      return present(await lenses.save(context.user.id, lens));
    },
  };
}

export type LensCalibrationService = ReturnType<typeof createLensCalibrationService>;
