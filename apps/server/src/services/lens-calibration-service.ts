import { readFile } from 'node:fs/promises';
import { findCheckerboard } from '@kinetrace/mocap/calibration/checkerboard';
import { calibrateIntrinsics } from '@kinetrace/mocap/calibration/intrinsics';
import { readKinetraceCameras } from '@kinetrace/mocap/camera/formats/kinetrace-json';
import { decodeImage } from '@kinetrace/mocap/video/decode';
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
async function lensFromJson(file: UploadedFile, deviceModel: string): Promise<NewLensCalibration> {
  let text: string;
  let cameras: ReturnType<typeof readKinetraceCameras>;
  try {
    text = await readFile(file.path, 'utf8');
    cameras = readKinetraceCameras(text);
  } catch {
    throw fileErrors(importMessages.lensJsonUnreadable(file.fileName));
  }
  if (cameras.length !== 1) throw fileErrors(importMessages.lensJsonUnreadable(file.fileName));
  const rms = (JSON.parse(text) as { calibration?: { rmsPx?: unknown } }).calibration?.rmsPx;
  const [camera] = cameras;
  return {
    deviceModel,
    imageSize: camera.imageSize,
    intrinsics: camera.intrinsics,
    distortion: camera.distortion,
    rmsErrorPx: typeof rms === 'number' && Number.isFinite(rms) ? rms : null,
  };
}

/** Zhang's calibration from board images, as `kinetrace calibrate --images` does (k3 fixed at 0: few views). */
async function lensFromImages(
  files: UploadedFile[],
  deviceModel: string,
  board: { rows: number; cols: number; squareSizeMm: number },
) {
  const views: Float64Array[] = [];
  let imageSize: { width: number; height: number } | undefined;
  for (const file of files) {
    const image = await decodeImage(file.path, 'gray').catch(() => {
      throw fileErrors(importMessages.lensImageUnreadable(file.fileName));
    });
    if (imageSize && (imageSize.width !== image.width || imageSize.height !== image.height))
      throw fileErrors(importMessages.lensImageSizes(file.fileName));
    imageSize = { width: image.width, height: image.height };
    const { detection } = findCheckerboard(image.data, image.width, image.height, board.rows, board.cols);
    if (detection) views.push(detection.corners);
  }
  if (!imageSize || views.length < LENS_MIN_VIEWS) {
    throw fileErrors(importMessages.lensTooFewViews(views.length, files.length, board.cols, board.rows));
  }
  const result = await calibrateIntrinsics(views, board, imageSize, { name: deviceModel }).catch(() => {
    throw fileErrors(importMessages.lensFailed);
  });
  if (![...result.camera.intrinsics, ...result.camera.distortion, result.rmsPx].every(Number.isFinite))
    throw fileErrors(importMessages.lensFailed);
  return {
    deviceModel,
    imageSize,
    intrinsics: result.camera.intrinsics,
    distortion: result.camera.distortion,
    rmsErrorPx: result.rmsPx,
  };
}

/**
 * Lens calibrations per device model, kept per user: a later board calibration of a phone of that
 * model takes its intrinsics and distortion from here instead of estimating them from one view.
 */
export function createLensCalibrationService(deps: { lenses: LensCalibrationsRepository }) {
  const { lenses } = deps;
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
          ? await lensFromJson(jsonFiles[0], fields.device_model)
          : await lensFromImages(files, fields.device_model, {
              rows: fields.cb_rows ?? CHECKERBOARD_DEFAULTS.rows,
              cols: fields.cb_cols ?? CHECKERBOARD_DEFAULTS.cols,
              squareSizeMm: fields.cb_square ?? CHECKERBOARD_DEFAULTS.squareSizeMm,
            });
      return present(await lenses.save(context.user.id, lens));
    },
  };
}

export type LensCalibrationService = ReturnType<typeof createLensCalibrationService>;
