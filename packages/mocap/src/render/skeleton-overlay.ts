import type { VideoKeypoint } from '../pose/keypoints.ts';
import { drawLine, fillDisc, type Rgb, type RgbImage } from './raster.ts';

/**
 * The neutral image: the keypoints the pose model detected in this camera (dots) and the 3D
 * keypoints reprojected into it (a stick figure), in two colours, so a user sees at a glance
 * whether the camera's calibration and the reconstruction agree with the picture.
 */
export const SKELETON_BONES: readonly (readonly [VideoKeypoint, VideoKeypoint])[] = [
  ['Nose', 'Neck'],
  ['Neck', 'RShoulder'],
  ['RShoulder', 'RElbow'],
  ['RElbow', 'RWrist'],
  ['Neck', 'LShoulder'],
  ['LShoulder', 'LElbow'],
  ['LElbow', 'LWrist'],
  ['Neck', 'midHip'],
  ['midHip', 'RHip'],
  ['midHip', 'LHip'],
  ['RHip', 'RKnee'],
  ['RKnee', 'RAnkle'],
  ['RAnkle', 'RHeel'],
  ['RHeel', 'RBigToe'],
  ['RAnkle', 'RBigToe'],
  ['LHip', 'LKnee'],
  ['LKnee', 'LAnkle'],
  ['LAnkle', 'LHeel'],
  ['LHeel', 'LBigToe'],
  ['LAnkle', 'LBigToe'],
];

export const DETECTED_COLOUR: Rgb = [255, 200, 0];
export const REPROJECTED_COLOUR: Rgb = [255, 0, 200];

/** A keypoint's position in the image's pixels, or null where it is missing. */
export type PointLookup = (name: string) => readonly [number, number] | null;

export function drawSkeletonOverlay(
  image: RgbImage,
  detected: PointLookup,
  reprojected: PointLookup,
  keypointNames: readonly string[],
): void {
  const thickness = Math.max(2, Math.round(image.height / 300));
  for (const [a, b] of SKELETON_BONES) {
    const pa = reprojected(a);
    const pb = reprojected(b);
    if (pa && pb) drawLine(image, pa[0], pa[1], pb[0], pb[1], thickness, REPROJECTED_COLOUR);
  }
  for (const name of keypointNames) {
    const p = reprojected(name);
    if (p) fillDisc(image, p[0], p[1], thickness * 1.2, REPROJECTED_COLOUR);
  }
  for (const name of keypointNames) {
    const p = detected(name);
    if (p) fillDisc(image, p[0], p[1], thickness * 1.6, DETECTED_COLOUR);
  }
}
