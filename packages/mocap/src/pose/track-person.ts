import { NoPersonFoundError } from './errors.ts';
import { VIDEO_KEYPOINTS } from './keypoints.ts';
import { MAX_OTHER_PEOPLE, type PoseEstimate } from './pose-model.ts';
import type { PoseInference } from './pose-worker-pool.ts';
import { extrapolateRegion, type PoseRegion } from './region.ts';
import { KEYPOINT_VALUES, type Keypoints2D } from './types.ts';

/** A frame for pose estimation: RGB pixels (decodeFrames with pixelFormat 'rgb24') and its time. */
export interface PoseInputFrame {
  timestampS: number;
  width: number;
  height: number;
  data: Uint8Array;
  pixelFormat?: 'rgb24' | 'gray';
}

/** How a person is tracked through one camera's frames, whatever runs the model. */
export interface TrackPoseOptions {
  /**
   * Size of the video as displayed, when frames were downscaled for speed: keypoints are given in
   * these pixels. Default: the frames' own size.
   */
  imageSize?: { width: number; height: number };
  /** Frame rate to report; default: computed from the frames' timestamps. */
  fps?: number;
  /** Number of frames expected, for progress reports. */
  frameCount?: number;
  /** Camera name for error messages ("camera 2", "cam02.mp4"). */
  cameraName?: string;
  onProgress?: (done: number, total: number) => void;
  /** Called with each frame's result, in frame order: whether the person was found in it. */
  onFrameResult?: (frame: number, personFound: boolean) => void;
  /** Stops the detection (and so the frames' decoding) with the signal's reason. */
  signal?: AbortSignal;
  /**
   * Follow the other people seen too (default true), for reconstruction to pick the person the cameras agree
   * on; each costs a landmark run a frame, and the detector runs once a second besides.
   */
  followOthers?: boolean;
}

/**
 * How long after losing the tracked person a re-detection still looks only where they were last
 * seen; after that it takes whoever is the most prominent (the subject came back elsewhere, or
 * was never the right one).
 */
export const FORGET_LOST_PERSON_S = 0.5;

/**
 * While nobody is tracked, the detector (several runs plus landmark checks: up to 10 times the
 * cost of a tracked frame) runs at most this often; the frames in between are marked not found.
 * A subject out of view for a while then costs little, and one coming back is missed for at most
 * this long, a gap the triangulation fills (it fills up to fps/5 frames).
 */
const RETRY_DETECTION_EVERY_S = 0.1;

/**
 * While the subject is tracked, the detector runs this often to find people who came into view
 * (the other people already seen are followed frame to frame): one detector run a second is about
 * 1 % of a tracked video's pose time at 60 fps (our choice).
 */
const LOOK_FOR_OTHERS_EVERY_S = 1;

/** The region moves on at its last velocity only when that velocity comes from nearby frames. */
const MAX_EXTRAPOLATION_GAP_FRAMES = 3;

interface InFlight {
  sequence: number;
  timestampS: number;
  scaleX: number;
  scaleY: number;
  estimate: Promise<PoseEstimate>;
}

/**
 * 2D keypoints of one person in each frame, inferred by `pool` (worker threads under Node, the
 * phone's own model in its browser). The person is tracked as BlazePose does: the region found in a
 * frame is where the model looks in the next one, and the detector runs only at the start and when
 * the person is lost. With N frames in flight the region comes from the frame N frames earlier (a few
 * hundredths of a second), moved on at the person's velocity, which the region's margin covers;
 * results are taken in frame order, so given frames, model and pool size always give the same
 * keypoints. One person is followed: the most prominent one at the start, then whoever is where the
 * tracked person was. The other people seen (up to MAX_OTHER_PEOPLE, each followed like the subject,
 * found by the detector when it runs for the subject and once a second besides) are kept in
 * `otherPeople`, so reconstruction can pick the person the cameras agree on where this camera
 * followed a bystander. Frames are taken only as fast as the pool goes.
 */
export async function trackPerson(
  frames: AsyncIterable<PoseInputFrame> | Iterable<PoseInputFrame>,
  pool: PoseInference,
  options: TrackPoseOptions,
): Promise<Keypoints2D> {
  const cameraName = options.cameraName ?? 'the video';
  const keypointCount = VIDEO_KEYPOINTS.length;
  const perFrame: Float32Array[] = [];
  const timestamps: number[] = [];
  const found: number[] = [];
  const othersPerFrame: (Float32Array | null)[][] = [];
  let imageSize = options.imageSize ? { width: options.imageSize.width, height: options.imageSize.height } : null;

  // The two latest frames taken in order: the tracking state. Taking results in frame order, not
  // as workers happen to finish, makes the regions, and so the keypoints, the same on every run.
  let latest: { frame: number; region: PoseRegion | null } = { frame: -1, region: null };
  let earlier: { frame: number; region: PoseRegion | null } = { frame: -1, region: null };
  let lastSeenRegion: PoseRegion | null = null;
  let lastSeenTimestampS = -Infinity;
  const regionFor = (frame: number): PoseRegion | null => {
    if (!latest.region) return null;
    if (!earlier.region || latest.frame - earlier.frame > MAX_EXTRAPOLATION_GAP_FRAMES) return latest.region;
    return extrapolateRegion(
      earlier as { frame: number; region: PoseRegion },
      latest as { frame: number; region: PoseRegion },
      frame,
    );
  };

  let lastDetectionS = -Infinity;
  let lastLookForOthersS = -Infinity;
  let othersRegions: (PoseRegion | null)[] = Array.from({ length: MAX_OTHER_PEOPLE }, () => null);

  const inFlight: InFlight[] = [];
  const finishOldest = async () => {
    options.signal?.throwIfAborted();
    const oldest = inFlight.shift()!;
    const estimate = await oldest.estimate;
    [earlier, latest] = [latest, { frame: oldest.sequence, region: estimate.trackingRegion }];
    if (estimate.found) [lastSeenRegion, lastSeenTimestampS] = [estimate.trackingRegion, oldest.timestampS];
    const toImagePixels = (keypoints: Float32Array, found: boolean) => {
      for (let k = 0; k < keypointCount; k++) {
        keypoints[KEYPOINT_VALUES * k] *= oldest.scaleX;
        keypoints[KEYPOINT_VALUES * k + 1] *= oldest.scaleY;
        if (!found) keypoints[KEYPOINT_VALUES * k + 2] = 0;
      }
      return keypoints;
    };
    const others = estimate.others ?? [];
    othersRegions = othersRegions.map((_, slot) => others[slot]?.trackingRegion ?? null);
    othersPerFrame.push(
      othersRegions.map((_, slot) => (others[slot] ? toImagePixels(others[slot].keypoints, true) : null)),
    );
    perFrame.push(toImagePixels(estimate.keypoints, estimate.found));
    timestamps.push(oldest.timestampS);
    found.push(estimate.found ? 1 : 0);
    options.onFrameResult?.(found.length - 1, estimate.found);
    options.onProgress?.(perFrame.length, Math.max(options.frameCount ?? 0, perFrame.length));
  };

  let sequence = 0;
  for await (const frame of frames) {
    if (frame.pixelFormat === 'gray') throw new Error('detectPose2D needs RGB frames: decode with pixelFormat "rgb24"');
    imageSize ??= { width: frame.width, height: frame.height };
    if (inFlight.length >= pool.size) await finishOldest();
    const frameSequence = sequence++;
    const preferNear = frame.timestampS - lastSeenTimestampS <= FORGET_LOST_PERSON_S ? lastSeenRegion : null;
    const region = regionFor(frameSequence);
    const personLost = latest.frame >= 0 && latest.region === null;
    let estimate: Promise<PoseEstimate>;
    if (!region && personLost && frame.timestampS - lastDetectionS < RETRY_DETECTION_EVERY_S) {
      estimate = Promise.resolve(notFound(keypointCount));
    } else {
      if (!region) lastDetectionS = frame.timestampS;
      const lookForOthers = frame.timestampS - lastLookForOthersS >= LOOK_FOR_OTHERS_EVERY_S;
      if (lookForOthers || !region) lastLookForOthersS = frame.timestampS;
      estimate = pool.infer(
        frame,
        options.followOthers === false
          ? { region, preferNear }
          : { region, preferNear, others: othersRegions, lookForOthers },
      );
      // A failure is reported where the estimate is awaited in turn, not as an unhandled rejection.
      estimate.catch(() => undefined);
    }
    inFlight.push({
      sequence: frameSequence,
      timestampS: frame.timestampS,
      scaleX: imageSize.width / frame.width,
      scaleY: imageSize.height / frame.height,
      estimate,
    });
  }
  while (inFlight.length > 0) await finishOldest();

  const frameCount = perFrame.length;
  if (!found.some((flag) => flag === 1)) throw new NoPersonFoundError(cameraName, frameCount);
  const data = new Float32Array(frameCount * keypointCount * KEYPOINT_VALUES);
  perFrame.forEach((keypoints, frame) => data.set(keypoints, frame * keypointCount * KEYPOINT_VALUES));
  const timestampsS = Float64Array.from(timestamps);
  return {
    keypointNames: VIDEO_KEYPOINTS,
    frameCount,
    fps: options.fps ?? averageFps(timestampsS),
    timestampsS,
    imageSize: imageSize ?? { width: 0, height: 0 },
    data,
    personFound: Uint8Array.from(found),
    ...otherPeopleLayers(othersPerFrame, keypointCount),
  };
}

/** One layer per slot that held someone in some frame, shaped like Keypoints2D.data; none: no field. */
function otherPeopleLayers(
  othersPerFrame: (Float32Array | null)[][],
  keypointCount: number,
): Pick<Keypoints2D, 'otherPeople'> {
  const stride = keypointCount * KEYPOINT_VALUES;
  const layers: Float32Array[] = [];
  for (let slot = 0; slot < MAX_OTHER_PEOPLE; slot++) {
    if (!othersPerFrame.some((others) => others[slot])) continue;
    const layer = new Float32Array(othersPerFrame.length * stride);
    othersPerFrame.forEach((others, frame) => {
      const keypoints = others[slot];
      if (keypoints) layer.set(keypoints, frame * stride);
      else
        for (let i = frame * stride; i < (frame + 1) * stride; i += KEYPOINT_VALUES) layer.fill(Number.NaN, i, i + 2);
    });
    layers.push(layer);
  }
  return layers.length > 0 ? { otherPeople: layers } : {};
}

function notFound(keypointCount: number): PoseEstimate {
  return {
    found: false,
    keypoints: new Float32Array(keypointCount * KEYPOINT_VALUES).fill(Number.NaN),
    trackingRegion: null,
  };
}

function averageFps(timestampsS: Float64Array): number {
  const n = timestampsS.length;
  return n >= 2 && timestampsS[n - 1] > timestampsS[0] ? (n - 1) / (timestampsS[n - 1] - timestampsS[0]) : 0;
}
