import { DEFAULT_POSE_MODEL, type PoseModelName } from './pose-model.ts';
import { PoseWorkerPool, type PoseInference } from './pose-worker-pool.ts';
import { trackPerson, type PoseInputFrame, type TrackPoseOptions } from './track-person.ts';
import type { Keypoints2D } from './types.ts';

export interface DetectPose2DOptions extends TrackPoseOptions {
  /** The model to run (default DEFAULT_POSE_MODEL); ignored when `pool` is given. */
  model?: PoseModelName;
  /** Worker threads to start (default: the number of cores); ignored when `pool` is given. */
  workers?: number;
  /** A running pool to reuse across cameras (it is left open). */
  pool?: PoseInference;
}

/**
 * 2D keypoints of one person in each frame of one camera's video.
 *
 * Frames are spread over a pool of worker threads, in order, with at most one frame in flight per
 * worker (consuming the frames only as fast as the workers go, so a long video's frames are never
 * all in memory); the person is tracked through them as trackPerson says.
 *
 * The frames' pixel buffers are handed over to the workers (transferred, not copied): the frames
 * must not be used after they are passed in.
 */
export async function detectPose2D(
  frames: AsyncIterable<PoseInputFrame> | Iterable<PoseInputFrame>,
  options: DetectPose2DOptions = {},
): Promise<Keypoints2D> {
  const started = options.pool
    ? undefined
    : await PoseWorkerPool.start({ model: options.model ?? DEFAULT_POSE_MODEL, workers: options.workers });
  try {
    return await trackPerson(frames, options.pool ?? started!, options);
  } finally {
    await started?.close();
  }
}
