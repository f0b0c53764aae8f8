import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { type KeypointSetName, kinetraceKeypoints2dSchema, openPoseFrameSchema } from '@kinetrace/contracts';
import type { z } from 'zod';
import { naturalCompare } from '../camera/formats/qualisys.ts';
import { type FollowedPeople, followSubject2D } from '../people/follow-subject-2d.ts';
import { ProcessingError } from '../pipeline/processing-error.ts';
import { keypointSetOfSize, keypointSetSize, videoKeypointsFromSet } from '../pose/keypoint-sets.ts';
import { VIDEO_KEYPOINTS } from '../pose/keypoints.ts';
import type { PoseModelName } from '../pose/pose-model.ts';
import { type PhoneFrames, placeOnVideoFrames } from '../pose/phone-keypoints.ts';
import { KEYPOINT_VALUES, type Keypoints2D, noKeypoints } from '../pose/types.ts';

/**
 * A camera's 2D keypoints made elsewhere (issue 24): a folder of OpenPose-layout files, one per
 * frame in name order (`cam01_000000000000_keypoints.json`, Pose2Sim's `cam01.0000.json`, ...), or one
 * Kinetrace keypoints JSON (`keypoints2DToJson`). Read into Keypoints2D, the pose stage's output.
 */
export interface KeypointsSource {
  /** A folder of per-frame OpenPose files, or a Kinetrace keypoints .json file. */
  path: string;
  /** The set the OpenPose files hold (default: from the keypoint count; BODY_25B must be named). */
  keypointSet?: KeypointSetName;
  /** Without a video (and no times in the file): frames at this rate from 0 s. */
  fps?: number;
  /**
   * Found by the phone that recorded the video (issue 24): on the frames it kept up with, at times from the
   * video's first frame; checked before use (processTrial), and placed on the video's frames by those times.
   */
  fromPhone?: boolean;
  /**
   * The server's own detection of the camera's video, made as the video arrived (issue 24; the engine's
   * keypoints JSON, detectCameraKeypoints): processTrial uses it only when this is how the trial detects.
   */
  detectedWith?: CameraDetection;
}

/** How a camera's keypoints were detected: what else they depend on is only its video. */
export interface CameraDetection {
  poseModel: PoseModelName;
  /** Video frames from one run of the pose model to the next (framesPerInferenceOf). */
  framesPerInference: number;
  /** The pose pool's workers: the frames kept in flight, so the regions the person is tracked in (track-person.ts). */
  poolSize: number;
}

/** Where the frames' times and the image size come from. */
export interface KeypointsClock {
  /** The camera's video: its frame times and size (its frame count must equal the keypoints'). */
  video?: { timestampsS: Float64Array; fps: number; width: number; height: number };
  /** Without a video: the size the coordinates are in when the file does not say (the calibrated camera's). */
  imageSize: { width: number; height: number };
}

/**
 * A camera's keypoints on its video's frames (or on the file's own times or rate without a video). A file
 * with fewer frames than the video and their times (a phone's, which processes what it keeps up with) is
 * placed on the video's frames by those times, from the video's first frame (placeOnVideoFrames); `placedFrom`
 * is then the file's frames as read, whose coverage decides whether a phone's keypoints are used.
 */
export async function readKeypoints2D(
  source: KeypointsSource,
  cameraName: string,
  clock: KeypointsClock,
): Promise<Keypoints2D & { placedFrom?: PhoneFrames }> {
  const invalid = (file: string, message: string) =>
    new ProcessingError('KEYPOINTS_UNREADABLE', `Camera ${cameraName}, keypoints ${file}: ${message}`, [cameraName]);
  let isFolder: boolean;
  try {
    isFolder = (await stat(source.path)).isDirectory();
  } catch {
    throw invalid(source.path, 'no such file or folder.');
  }
  const read = isFolder
    ? await readOpenPoseFolder(source.path, source.keypointSet, invalid)
    : await readKinetraceFile(source.path, invalid);
  const { video } = clock;
  if (video && read.timestampsS && (source.fromPhone || read.frames.length !== video.timestampsS.length))
    return placedOnVideo(read, read.timestampsS, video);
  const times = frameTimes(read.frames.length, read.timestampsS, clock.video, source.fps, (message) =>
    invalid(source.path, message),
  );
  return toKeypoints2D(read, times, read.imageSize ?? clock.video ?? clock.imageSize);
}

interface PeopleFrames {
  /** Per frame, the people (VIDEO_KEYPOINTS layout). */
  frames: Float32Array[][];
  /** Who the subject and the others are, when the file says (our own files); else they are followed. */
  followed?: FollowedPeople;
  timestampsS?: number[];
  imageSize?: { width: number; height: number };
}

type Invalid = (file: string, message: string) => ProcessingError;

/** A zod error as the fields at fault and what is wrong with each. */
function fieldErrors(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(file)'}: ${issue.message}`)
    .join('; ');
}

async function parseJson(path: string, name: string, invalid: Invalid): Promise<unknown> {
  try {
    return JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw invalid(name, `not valid JSON (${(error as Error).message}).`);
  }
}

async function readOpenPoseFolder(
  folder: string,
  named: KeypointSetName | undefined,
  invalid: Invalid,
): Promise<PeopleFrames> {
  const files = (await readdir(folder)).filter((file) => file.toLowerCase().endsWith('.json')).sort(naturalCompare);
  if (files.length === 0) throw invalid(folder, 'no .json files in this folder (one OpenPose file per frame).');
  let set = named;
  const frames: Float32Array[][] = [];
  for (const file of files) {
    const parsed = openPoseFrameSchema.safeParse(await parseJson(join(folder, file), file, invalid));
    if (!parsed.success) throw invalid(file, fieldErrors(parsed.error));
    const people = parsed.data.people.filter((person) => person.pose_keypoints_2d.length > 0);
    for (const [index, person] of people.entries()) {
      const count = person.pose_keypoints_2d.length / KEYPOINT_VALUES;
      set ??= keypointSetOfSize(count);
      if (set === undefined)
        throw invalid(
          file,
          `people.${index}.pose_keypoints_2d: ${count} keypoints is no set we know (17: COCO, 25: OpenPose BODY_25, 26: Halpe); name the set (body25, body25b, coco17, halpe26).`,
        );
      if (count !== keypointSetSize(set))
        throw invalid(
          file,
          `people.${index}.pose_keypoints_2d: ${count} keypoints, but ${set} has ${keypointSetSize(set)}.`,
        );
    }
    frames.push(
      people.map((person) => {
        const keypoints = new Float32Array(VIDEO_KEYPOINTS.length * KEYPOINT_VALUES);
        videoKeypointsFromSet(set!, person.pose_keypoints_2d, keypoints);
        return keypoints;
      }),
    );
  }
  return { frames };
}

async function readKinetraceFile(path: string, invalid: Invalid): Promise<PeopleFrames> {
  const parsed = kinetraceKeypoints2dSchema.safeParse(await parseJson(path, path, invalid));
  if (!parsed.success) throw invalid(path, fieldErrors(parsed.error));
  const file = parsed.data;
  // Each of our keypoints from the file's column of that name; a keypoint the file lacks stays missing.
  const columns = VIDEO_KEYPOINTS.map((name) => file.keypointNames.indexOf(name));
  if (columns.every((column) => column < 0))
    throw invalid(path, `keypointNames: none of the keypoints we use (${VIDEO_KEYPOINTS.join(', ')}).`);
  const person = (values: (number | null)[] | null) => {
    const keypoints = new Float32Array(VIDEO_KEYPOINTS.length * KEYPOINT_VALUES);
    columns.forEach((column, k) => {
      const [x, y, confidence] = [0, 1, 2].map((axis) =>
        values && column >= 0 ? values[column * KEYPOINT_VALUES + axis] : null,
      );
      keypoints.set([x ?? Number.NaN, y ?? Number.NaN, confidence ?? 0], k * KEYPOINT_VALUES);
    });
    return keypoints;
  };
  const layers = file.otherPeople ?? [];
  return {
    // The subject, then each layer of other people in its slot (empty where it holds nobody).
    frames: file.frames.map((frame, f) => [person(frame), ...layers.map((layer) => person(layer[f]))]),
    followed: {
      subject: Int32Array.from(file.frames, (frame) => (frame === null ? -1 : 0)),
      others: file.frames.map(() => layers.map((_, slot) => slot + 1)),
    },
    timestampsS: file.timestampsS,
    imageSize: file.imageSize,
  };
}

/** The file's frames placed on the video's by their times (other people are not kept: a phone sends none). */
function placedOnVideo(
  read: PeopleFrames,
  fileTimesS: number[],
  video: NonNullable<KeypointsClock['video']>,
): Keypoints2D & { placedFrom: PhoneFrames } {
  const timesS = Float64Array.from(fileTimesS);
  const own = toKeypoints2D(read, { timestampsS: timesS, fps: video.fps }, read.imageSize ?? video);
  const firstS = video.timestampsS[0] ?? 0;
  const placed = placeOnVideoFrames(
    { timesS, data: own.data, personFound: own.personFound },
    VIDEO_KEYPOINTS.length,
    video.timestampsS.map((time) => time - firstS),
  );
  return {
    keypointNames: VIDEO_KEYPOINTS,
    frameCount: video.timestampsS.length,
    fps: video.fps,
    timestampsS: video.timestampsS,
    imageSize: own.imageSize,
    ...placed,
    placedFrom: { timesS, data: own.data, personFound: own.personFound },
  };
}

function frameTimes(
  frameCount: number,
  fromFile: number[] | undefined,
  video: KeypointsClock['video'],
  givenFps: number | undefined,
  invalid: (message: string) => ProcessingError,
): { timestampsS: Float64Array; fps: number } {
  if (video) {
    if (video.timestampsS.length !== frameCount)
      throw invalid(
        `${frameCount} frames of keypoints, but the video has ${video.timestampsS.length}: give one per frame of the video.`,
      );
    return { timestampsS: video.timestampsS, fps: video.fps };
  }
  if (fromFile) {
    const timestampsS = Float64Array.from(fromFile);
    const spanS = frameCount > 1 ? timestampsS[frameCount - 1] - timestampsS[0] : 0;
    return { timestampsS, fps: spanS > 0 ? (frameCount - 1) / spanS : (givenFps ?? 0) };
  }
  if (givenFps === undefined || !(givenFps > 0))
    throw invalid('no video and no frame times: give the frame rate (--fps) or the video.');
  const fps = givenFps;
  return { timestampsS: Float64Array.from({ length: frameCount }, (_, i) => i / fps), fps };
}

function toKeypoints2D(
  people: PeopleFrames,
  times: { timestampsS: Float64Array; fps: number },
  imageSize: { width: number; height: number },
): Keypoints2D {
  const frameCount = people.frames.length;
  const stride = VIDEO_KEYPOINTS.length * KEYPOINT_VALUES;
  const missing = () => noKeypoints(frameCount, VIDEO_KEYPOINTS.length);
  const followed = people.followed ?? followSubject2D(people.frames, times.fps);
  const data = missing();
  const personFound = new Uint8Array(frameCount);
  const otherLayers: Float32Array[] = [];
  people.frames.forEach((frame, f) => {
    const subject = followed.subject[f];
    if (subject >= 0) {
      data.set(frame[subject], f * stride);
      personFound[f] = 1;
    }
    followed.others[f].forEach((person, slot) => {
      otherLayers[slot] ??= missing();
      otherLayers[slot].set(frame[person], f * stride);
    });
  });
  return {
    keypointNames: VIDEO_KEYPOINTS,
    frameCount,
    fps: times.fps,
    timestampsS: times.timestampsS,
    imageSize: { width: imageSize.width, height: imageSize.height },
    data,
    personFound,
    ...(otherLayers.length > 0 ? { otherPeople: otherLayers } : {}),
  };
}
