import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { type CameraModel, projectPoint } from '../camera/camera.ts';
import type { TrialResult } from '../pipeline/process-trial.ts';
import { drawSkeletonOverlay } from '../render/skeleton-overlay.ts';
import { decodeFrames } from '../video/decode.ts';
import { writeJpeg } from '../video/encode.ts';
import { fileSafe } from './file-names.ts';
import { RESULT_TAG } from './result-tags.ts';
import { nearestFrame, type TrialClock, videoTimeS } from './trial-clock.ts';
import type { OutputFile, SessionVideo } from './types.ts';

/** Longest side of the neutral images, px. */
const IMAGE_MAX_SIDE_PX = 1280;

/**
 * One neutral image per camera: the camera's frame at trial frame `frame` (the middle of the
 * stillest window the model was scaled on), with the keypoints the pose model detected in it and
 * the 3D keypoints reprojected through the chosen camera drawn over it.
 */
export async function writeNeutralImages(
  result: TrialResult,
  clock: TrialClock,
  videos: readonly SessionVideo[],
  frame: number,
  outDir: string,
): Promise<OutputFile[]> {
  await mkdir(outDir, { recursive: true });
  const { keypoints } = result;
  const markerCount = keypoints.markerNames.length;
  const files: OutputFile[] = [];
  for (const [c, video] of videos.entries()) {
    const timeS = videoTimeS(clock, c, keypoints.timesS[frame]);
    if (timeS === undefined || video.path === undefined) continue;
    const detected = result.keypoints2D[c];
    const k = nearestFrame(detected.timestampsS, timeS);
    const camera = result.cameras[c];
    for await (const decoded of decodeFrames(video.path, {
      pixelFormat: 'rgb24',
      startFrame: k,
      endFrame: k + 1,
      maxWidth: IMAGE_MAX_SIDE_PX,
      maxHeight: IMAGE_MAX_SIDE_PX,
    })) {
      const image = { data: decoded.data, width: decoded.width, height: decoded.height };
      const videoScale = decoded.width / detected.imageSize.width;
      const [fromCameraX, fromCameraY] = cameraToVideoScale(camera, detected.imageSize);
      const keypointCount = detected.keypointNames.length;
      drawSkeletonOverlay(
        image,
        (name) => {
          const i = (k * keypointCount + detected.keypointNames.indexOf(name as never)) * 3;
          return detected.data[i + 2] > 0 && !Number.isNaN(detected.data[i])
            ? [detected.data[i] * videoScale, detected.data[i + 1] * videoScale]
            : null;
        },
        (name) => {
          const m = keypoints.markerNames.indexOf(name);
          if (m < 0) return null;
          const point = keypoints.positionsM.subarray((frame * markerCount + m) * 3, (frame * markerCount + m) * 3 + 3);
          const pixel = point.some(Number.isNaN) ? null : projectPoint(camera, point);
          return pixel && [pixel[0] * fromCameraX * videoScale, pixel[1] * fromCameraY * videoScale];
        },
        detected.keypointNames,
      );
      const path = join(outDir, `neutral_${fileSafe(video.cameraName)}.jpg`);
      await writeJpeg(image, path);
      files.push({ tag: RESULT_TAG.neutralImage, path, cameraName: video.cameraName });
    }
  }
  return files;
}

/**
 * From the calibrated camera's pixels to the video's: the reverse of how the reconstruction reads
 * keypoints of a video downscaled after calibration (same shape, more than 2 % smaller); sizes
 * that differ by padding only (1080 vs 1088) are the same pixels.
 */
function cameraToVideoScale(camera: CameraModel, video: { width: number; height: number }): [number, number] {
  const scaleX = video.width / camera.imageSize.width;
  const scaleY = video.height / camera.imageSize.height;
  const sameShape = Math.abs(scaleX / scaleY - 1) < 0.01;
  return !sameShape || (Math.abs(scaleX - 1) < 0.02 && Math.abs(scaleY - 1) < 0.02) ? [1, 1] : [scaleX, scaleY];
}
