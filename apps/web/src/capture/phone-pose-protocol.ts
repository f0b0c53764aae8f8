import type { PoseEstimate, PoseModelName, PoseRequest } from '@kinetrace/mocap/pose/pose-model';
import type { RgbImage } from '@kinetrace/mocap/pose/region-sampler';

/** Why a phone cannot run the model, as the capture page completes "This phone cannot find keypoints (…)". */
export const phonePoseUnavailable = {
  noWebgl: 'its browser has no WebGL',
  noAcceleration: 'it has no graphics acceleration',
} as const;

/** What the capture page asks of its pose worker (phone-pose-worker.ts). */
export type PhonePoseRequest =
  | { kind: 'load'; id: number; model: PoseModelName; origin: string }
  | { kind: 'infer'; id: number; image: RgbImage; request: PoseRequest };

/** The worker's answer to the request with the same id. */
export type PhonePoseAnswer =
  | { kind: 'loaded'; id: number }
  | { kind: 'estimate'; id: number; estimate: PoseEstimate }
  | { kind: 'failed'; id: number; message: string };
