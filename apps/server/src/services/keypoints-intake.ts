import { readFile, stat } from 'node:fs/promises';
import { importMessages, kinetraceKeypoints2dSchema, openPoseFrameSchema } from '@kinetrace/contracts';
import type { z } from 'zod';
import { invalidFields } from '../http/http-errors.ts';
import type { UploadedFile } from './calibration-import-service.ts';

/**
 * The 2D keypoints an import gives beside its videos (issue 24), so the server uses them instead of
 * detecting: per camera, one Kinetrace keypoints .json named after the camera (`cam01.json`), or its
 * OpenPose files, one per frame, named as OpenPose names them (`cam01_000000000000_keypoints.json`) or
 * Pose2Sim (`cam01.0000.json`). Every file is validated with the contracts' schemas, and its frame
 * count checked against the camera's video, before anything is stored: a refusal names the file and
 * the field at fault. (The keypoint set is the engine's to map: a count it does not know fails the
 * trial with a message saying so.)
 */
export interface CameraKeypoints {
  layout: 'openpose' | 'kinetrace';
  /** The camera's files, in frame order for OpenPose. */
  files: UploadedFile[];
}

/** A Kinetrace keypoints file of a 10-minute 240 fps video is about 100 MB; one OpenPose frame a few kB. */
const MAX_FILE_BYTES = { kinetrace: 256 * 1024 ** 2, openpose: 1024 ** 2 };

/** `cam01_000000000012_keypoints.json`, `cam01.0012.json`, `cam01_12.json`: a camera's frame file. */
const FRAME_FILE = /^(.+?)[._](\d+)(?:_keypoints)?\.json$/i;

function fieldProblem(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(file)'}: ${issue.message}`)
    .join('; ');
}

/** A keypoints file read and validated with `schema`; a refusal is a 400 whose `keypoints` field names the file and field at fault. */
export async function parsedKeypointsFile<T>(
  file: UploadedFile,
  schema: z.ZodType<T>,
  maxBytes: number,
  notJson = importMessages.keypointsNotJson(file.fileName),
): Promise<T> {
  const refuse = (message: string) => invalidFields({ keypoints: [message] });
  if ((await stat(file.path)).size > maxBytes)
    throw refuse(importMessages.keypointsTooLarge(file.fileName, Math.round(maxBytes / 1024 ** 2)));
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(file.path, 'utf8'));
  } catch {
    throw refuse(notJson);
  }
  const result = schema.safeParse(raw);
  if (!result.success) throw refuse(importMessages.keypointsInvalid(file.fileName, fieldProblem(result.error)));
  return result.data;
}

/**
 * The keypoints files grouped by camera (keys: `cameras`, as given), each checked; `frameCounts` are
 * the cameras' videos' frame counts, same order as `cameras`.
 */
export async function checkImportedKeypoints(
  files: readonly UploadedFile[],
  cameras: readonly string[],
  frameCounts: readonly number[],
): Promise<Map<string, CameraKeypoints>> {
  const refuse = (message: string) => invalidFields({ keypoints: [message] });
  const cameraOf = (name: string) => {
    const camera = cameras.find((candidate) => candidate.toLowerCase() === name.toLowerCase());
    if (camera === undefined) throw refuse(importMessages.keypointsWithoutVideo(name, [...cameras]));
    return camera;
  };
  const byCamera = new Map<string, CameraKeypoints>();
  for (const file of files) {
    if (!file.fileName.toLowerCase().endsWith('.json')) throw refuse(importMessages.keypointsNotJson(file.fileName));
    const frame = FRAME_FILE.exec(file.fileName);
    const stem = file.fileName.slice(0, -'.json'.length);
    // A name that is a camera's is its Kinetrace file, even when the camera's name ends in digits.
    const isCameraName = cameras.some((camera) => camera.toLowerCase() === stem.toLowerCase());
    const layout = frame && !isCameraName ? 'openpose' : 'kinetrace';
    const camera = cameraOf(layout === 'openpose' ? frame![1] : stem);
    const entry = byCamera.get(camera) ?? { layout, files: [] };
    if (entry.layout !== layout || (layout === 'kinetrace' && entry.files.length > 0))
      throw refuse(importMessages.keypointsTwice(camera));
    entry.files.push(file);
    byCamera.set(camera, entry);
  }
  for (const [camera, entry] of byCamera) {
    const expected = frameCounts[cameras.indexOf(camera)];
    let frames: number;
    if (entry.layout === 'kinetrace') {
      frames = (await parsedKeypointsFile(entry.files[0], kinetraceKeypoints2dSchema, MAX_FILE_BYTES.kinetrace)).frames
        .length;
    } else {
      entry.files.sort((a, b) => Number(FRAME_FILE.exec(a.fileName)![2]) - Number(FRAME_FILE.exec(b.fileName)![2]));
      for (const file of entry.files) await parsedKeypointsFile(file, openPoseFrameSchema, MAX_FILE_BYTES.openpose);
      frames = entry.files.length;
    }
    if (frames !== expected)
      throw refuse(
        importMessages.keypointsInvalid(
          entry.files[0].fileName,
          `${frames} frames of keypoints for camera "${camera}", whose video has ${expected}: give one per frame of the video.`,
        ),
      );
  }
  return byCamera;
}
