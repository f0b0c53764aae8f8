/**
 * The video keypoints Kinetrace produces, named as OpenCap names them (OpenPose BODY_25 names) so that
 * .trc files, augmenters and models made for OpenCap read them directly. Neck and midHip are the
 * midpoints of the shoulders and of the hips. BlazePose has no small-toe landmark, so RSmallToe and
 * LSmallToe are absent; BigToe is BlazePose's foot index (tip of the second toe), the closest point.
 */
export const VIDEO_KEYPOINTS = [
  'Nose',
  'LEye',
  'REye',
  'LEar',
  'REar',
  'Neck',
  'RShoulder',
  'LShoulder',
  'RElbow',
  'LElbow',
  'RWrist',
  'LWrist',
  'midHip',
  'RHip',
  'LHip',
  'RKnee',
  'LKnee',
  'RAnkle',
  'LAnkle',
  'RHeel',
  'LHeel',
  'RBigToe',
  'LBigToe',
] as const;

export type VideoKeypoint = (typeof VIDEO_KEYPOINTS)[number];

export function keypointIndex(name: VideoKeypoint): number {
  return VIDEO_KEYPOINTS.indexOf(name);
}
