import type { POSE_RATES } from '@kinetrace/contracts';
import { placeOnVideoFrames } from './phone-keypoints.ts';
import { KEYPOINT_VALUES, type Keypoints2D } from './types.ts';

/**
 * How often the server runs the pose model on a camera's frames (issue 24): on every frame, or at the rate
 * the trial's low-pass filter needs, the frames between filled from the two inferred around them as a phone's
 * keypoints at a lower rate are (placeOnVideoFrames). The filter keeps nothing above its cutoff, and keypoints
 * at twice the cutoff represent what it keeps (the sampling theorem, as phoneKeypointsDensity asks of a
 * phone's): a 60 fps gait trial (12 Hz) needs 24 Hz, so every other frame, half the pose time.
 */
export type PoseRate = keyof typeof POSE_RATES;

/**
 * Video frames from one inference to the next for a filter at `cutoffHz` (1: every frame): the largest whole
 * step whose rate stays at least twice the cutoff. A filter that is not applied (its cutoff at half the frame
 * rate) needs every frame.
 */
export function framesPerInference(fps: number, cutoffHz: number, passThrough: boolean): number {
  if (passThrough || !(fps > 0) || !(cutoffHz > 0)) return 1;
  return Math.max(1, Math.floor(fps / (2 * cutoffHz) + 1e-9));
}

/**
 * Keypoints detected on some of a video's frames, placed on all of them (`videoTimesS`, the video's frame
 * times): the phone's path (placeOnVideoFrames), the subject and each other person followed alike, so
 * reconstruction sees a detection of every frame.
 */
export function onEveryVideoFrame(detected: Keypoints2D, videoTimesS: Float64Array): Keypoints2D {
  const keypointCount = detected.keypointNames.length;
  const stride = keypointCount * KEYPOINT_VALUES;
  const fromFirst = (times: Float64Array) => times.map((time) => time - (times[0] ?? 0));
  const [detectedTimesS, videoFromFirstS] = [fromFirst(detected.timestampsS), fromFirst(videoTimesS)];
  const placed = placeOnVideoFrames(
    { timesS: detectedTimesS, data: detected.data, personFound: detected.personFound },
    keypointCount,
    videoFromFirstS,
  );
  // Another person is in a frame of their layer where their keypoints have a place.
  const otherPeople = detected.otherPeople?.map((layer) => {
    const present = Uint8Array.from({ length: detected.frameCount }, (_, frame) =>
      Number.isNaN(layer[frame * stride]) ? 0 : 1,
    );
    return placeOnVideoFrames(
      { timesS: detectedTimesS, data: layer, personFound: present },
      keypointCount,
      videoFromFirstS,
    ).data;
  });
  return {
    ...detected,
    frameCount: videoTimesS.length,
    timestampsS: videoTimesS,
    ...placed,
    ...(otherPeople && { otherPeople }),
  };
}
