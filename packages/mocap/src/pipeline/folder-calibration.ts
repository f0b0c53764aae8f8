import { existsSync, readdirSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import type { BoardSpec } from '../calibration/camera-calibration.ts';
import type { CameraModel } from '../camera/camera.ts';
import { cameraFileExtensions, readCameraFile } from '../camera/formats/index.ts';
import { naturalCompare } from '../camera/formats/qualisys.ts';
import { calibrateSession } from '../session/calibrate-session.ts';
import { ProcessingError } from './processing-error.ts';
import { IMAGE_EXTENSIONS, VIDEO_EXTENSIONS } from './trial-folder.ts';

/** The cameras of a processed folder, and, when calibrated from board videos, both poses of each. */
export interface FolderCalibration {
  cameras: CameraModel[];
  /** Per camera (same order): every board pose solution with its error, when calibrated from videos. */
  solutions?: { camera: CameraModel; boardRmsPx: number }[][];
  /** Calibration images (detected corners and world axes), when calibrated from videos. */
  images?: string[];
}

/**
 * The cameras of a processed folder, from its `calibration/` folder: a camera file (see
 * readCameraFile), or one checkerboard video or image per camera, named after the camera
 * (`calibration/cam1.mp4`), with the board of settings.json, calibrated as a session's
 * calibration trial is (calibrateSession: single-view focal estimate, both IPPE solutions kept,
 * one calibration image per camera written to `imagesDir`).
 */
export async function readFolderCalibration(
  folder: string,
  board: BoardSpec,
  imagesDir: string,
): Promise<FolderCalibration> {
  const calibrationDir = join(folder, 'calibration');
  const supported = `a camera file (${cameraFileExtensions.join(', ')}) or one checkerboard video or image per camera`;
  if (!existsSync(calibrationDir)) {
    throw new ProcessingError(
      'CALIBRATION_MISSING',
      `No "calibration" folder in ${folder}. Put ${supported} in ${calibrationDir}.`,
    );
  }
  const files = readdirSync(calibrationDir)
    .filter((name) => !name.startsWith('.'))
    .sort(naturalCompare);
  const cameraFiles = files.filter((name) =>
    cameraFileExtensions.some((extension) => name.toLowerCase().endsWith(extension)),
  );
  if (cameraFiles.length > 1) {
    throw new ProcessingError(
      'INVALID_FOLDER',
      `Several camera calibration files in ${calibrationDir} (${cameraFiles.join(', ')}); keep only the one to use.`,
    );
  }
  if (cameraFiles.length === 1) {
    const path = join(calibrationDir, cameraFiles[0]);
    try {
      return { cameras: await readCameraFile(path) };
    } catch (error) {
      throw new ProcessingError(
        'CALIBRATION_MISSING',
        `Cannot read the camera calibration ${path}: ${(error as Error).message}`,
      );
    }
  }
  const media = files.filter((name) =>
    [...VIDEO_EXTENSIONS, ...IMAGE_EXTENSIONS].includes(extname(name).toLowerCase() as never),
  );
  if (media.length === 0)
    throw new ProcessingError(
      'CALIBRATION_MISSING',
      `Nothing to calibrate from in ${calibrationDir}: put ${supported} there.`,
    );

  const { cameras } = await calibrateSession({
    videos: media.map((file) => ({ cameraName: basename(file, extname(file)), path: join(calibrationDir, file) })),
    board,
    outDir: imagesDir,
  });
  return {
    cameras: cameras.map((camera) => camera.solutions[0].camera),
    solutions: cameras.map((camera) => camera.solutions),
    images: cameras.map((camera) => camera.imagePath),
  };
}

/**
 * Pairs each video with its calibrated camera (returns the camera's index for each video): by name (case-insensitive), or, when the names do
 * not match at all but the counts do, in natural order (cam1, cam2, ...) with a warning.
 */
export function matchCamerasToVideos(
  cameras: readonly CameraModel[],
  videoCameraNames: readonly string[],
): { indices: number[]; warning?: string } {
  const byName = new Map(cameras.map((camera, index) => [camera.name.toLowerCase(), index]));
  const matched = videoCameraNames.map((name) => byName.get(name.toLowerCase()));
  if (matched.every((index) => index !== undefined)) return { indices: matched as number[] };
  if (matched.every((index) => index === undefined) && cameras.length === videoCameraNames.length) {
    const sorted = cameras.map((_, index) => index).sort((a, b) => naturalCompare(cameras[a].name, cameras[b].name));
    return {
      indices: sorted,
      warning: `Video names (${videoCameraNames.join(', ')}) do not match the calibrated cameras (${sorted.map((i) => cameras[i].name).join(', ')}); paired them in order.`,
    };
  }
  const missing = videoCameraNames.filter((_, i) => !matched[i]);
  throw new ProcessingError(
    'CALIBRATION_MISSING',
    `No calibration for camera(s) ${missing.join(', ')}: the calibration has ${cameras.map((c) => c.name).join(', ')}. Name each video after its camera, or calibrate the missing cameras.`,
    missing,
  );
}
