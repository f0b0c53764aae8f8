import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import {
  BoardNotFoundError,
  calibrateCameraFromVideo,
  type CalibrateCameraOptions,
  type CameraCalibration,
} from '../calibration/camera-calibration.ts';
import { ProcessingError } from '../pipeline/processing-error.ts';
import { drawBoardOverlay } from '../render/board-overlay.ts';
import { decodeFrames } from '../video/decode.ts';
import { writeJpeg } from '../video/encode.ts';
import { VideoReadError } from '../video/errors.ts';
import { probeVideo } from '../video/probe.ts';
import { fileSafe } from './file-names.ts';
import { CALIBRATION_STAGES, stageProgress } from './progress.ts';
import type { CalibratedCamera, CalibrationInput, CalibrationOutcome, LensIntrinsics, RunOptions } from './types.ts';
import { unreadableVideoError } from './unreadable-video.ts';

/**
 * The calibration trial (spec §4.2): in each camera's video, the session's board → intrinsics
 * (the device's lens calibration when known, else the board's single-view estimate) and both
 * planar pose solutions, plus a calibration image per camera. Every camera is tried before
 * failing, so one error names every camera that needs attention.
 */
export async function calibrateSession(input: CalibrationInput, options: RunOptions = {}): Promise<CalibrationOutcome> {
  const progress = stageProgress(CALIBRATION_STAGES, options.onProgress);
  const count = input.videos.length;
  const calibrations: CameraCalibration[] = [];
  const notFound: BoardNotFoundError[] = [];
  const unreadable: string[] = [];
  progress('board', 0, count);
  for (const [i, video] of input.videos.entries()) {
    try {
      const intrinsics = video.lens && (await lensForVideo(video.lens, video.path));
      calibrations.push(
        await calibrateCameraFromVideo(video.path, input.board, { cameraName: video.cameraName, intrinsics }),
      );
    } catch (error) {
      if (error instanceof BoardNotFoundError) notFound.push(error);
      else if (error instanceof VideoReadError) unreadable.push(video.cameraName);
      else throw error;
    }
    progress('board', i + 1, count);
  }
  if (unreadable.length > 0) throw unreadableVideoError(unreadable);
  if (notFound.length > 0) {
    throw new ProcessingError(
      'BOARD_NOT_FOUND',
      notFound.map((error) => error.message).join('\n\n'),
      notFound.map((error) => error.cameraName),
    );
  }

  await mkdir(input.outDir, { recursive: true });
  const cameras: CalibratedCamera[] = [];
  for (const [i, video] of input.videos.entries()) {
    const calibration = calibrations[i];
    const imagePath = join(input.outDir, `calibration_${fileSafe(video.cameraName)}.jpg`);
    await writeCalibrationImage(video.path, calibration, input.board.squareSizeMm, imagePath);
    cameras.push({
      cameraName: video.cameraName,
      solutions: calibration.solutions,
      intrinsicsEstimated: calibration.intrinsicsEstimated,
      boardRmsPx: calibration.solutions[0].boardRmsPx,
      imagePath,
    });
    progress('outputs', i + 1, count);
  }
  return { cameras };
}

/**
 * The lens calibration as it applies to this video: as is at the same size, scaled at another
 * size of the same shape (a 1080p calibration for a 720p video); not at all when the shape or
 * orientation differs (the board estimate is used instead).
 */
async function lensForVideo(
  lens: LensIntrinsics,
  path: string,
): Promise<CalibrateCameraOptions['intrinsics'] | undefined> {
  const info = await probeVideo(path);
  const scaleX = info.width / lens.imageSize.width;
  const scaleY = info.height / lens.imageSize.height;
  if (Math.abs(scaleX / scaleY - 1) > 0.01) return undefined;
  const K = lens.intrinsics;
  // Pixel centres at integer coordinates: a principal point c maps to (c + 0.5) · s − 0.5.
  const intrinsics = Float64Array.from([
    K[0] * scaleX,
    K[1] * scaleX,
    (K[2] + 0.5) * scaleX - 0.5,
    0,
    K[4] * scaleY,
    (K[5] + 0.5) * scaleY - 0.5,
    0,
    0,
    1,
  ]);
  return {
    intrinsics,
    distortion: Float64Array.from(lens.distortion),
    imageSize: { width: info.width, height: info.height },
  };
}

/** Longest side of the calibration images, px: enough to check each corner, small enough to load fast. */
const IMAGE_MAX_SIDE_PX = 1280;
/** Drawn axis length, in board squares. */
const AXIS_SQUARES = 3;

async function writeCalibrationImage(
  videoPath: string,
  calibration: CameraCalibration,
  squareSizeMm: number,
  path: string,
): Promise<void> {
  const frames = decodeFrames(videoPath, {
    pixelFormat: 'rgb24',
    startFrame: calibration.frameIndex,
    endFrame: calibration.frameIndex + 1,
    maxWidth: IMAGE_MAX_SIDE_PX,
    maxHeight: IMAGE_MAX_SIDE_PX,
  });
  for await (const frame of frames) {
    const image = { data: frame.data, width: frame.width, height: frame.height };
    drawBoardOverlay(image, {
      corners: calibration.detection.corners,
      rows: calibration.detection.rows,
      cols: calibration.detection.cols,
      camera: calibration.solutions[0].camera,
      axisLengthM: (AXIS_SQUARES * squareSizeMm) / 1000,
    });
    await writeJpeg(image, path);
    return;
  }
}
