import type { Keypoints2D } from '../pose/types.ts';

/**
 * What synchronisation and time alignment need of one camera's 2D keypoints: Keypoints2D, with any
 * keypoint names (so that other tools' keypoints, e.g. OpenPose's, can be synchronised too).
 */
export type KeypointSeries = Pick<Keypoints2D, 'frameCount' | 'fps' | 'timestampsS' | 'data' | 'otherPeople'> & {
  keypointNames: readonly string[];
};
