import { VIDEO_KEYPOINTS, type VideoKeypoint } from './keypoints.ts';

/**
 * BlazePose's 33 body landmarks by index (MediaPipe pose landmark model), then two auxiliary
 * alignment points (33: body centre, 34: point on the body circle) that only serve tracking.
 */
export const BLAZEPOSE_LANDMARK = {
  nose: 0,
  leftEye: 2,
  rightEye: 5,
  leftEar: 7,
  rightEar: 8,
  leftShoulder: 11,
  rightShoulder: 12,
  leftElbow: 13,
  rightElbow: 14,
  leftWrist: 15,
  rightWrist: 16,
  leftHip: 23,
  rightHip: 24,
  leftKnee: 25,
  rightKnee: 26,
  leftAnkle: 27,
  rightAnkle: 28,
  leftHeel: 29,
  rightHeel: 30,
  leftFootIndex: 31,
  rightFootIndex: 32,
  alignmentCentre: 33,
  alignmentTop: 34,
} as const;

const L = BLAZEPOSE_LANDMARK;

/**
 * Each video keypoint as the BlazePose landmarks it averages: one landmark, or two for the
 * midpoints OpenPose defines (Neck between the shoulders, midHip between the hips). BigToe is the
 * foot index (BlazePose has no separate big toe).
 */
const SOURCES: Record<VideoKeypoint, readonly number[]> = {
  Nose: [L.nose],
  LEye: [L.leftEye],
  REye: [L.rightEye],
  LEar: [L.leftEar],
  REar: [L.rightEar],
  Neck: [L.leftShoulder, L.rightShoulder],
  RShoulder: [L.rightShoulder],
  LShoulder: [L.leftShoulder],
  RElbow: [L.rightElbow],
  LElbow: [L.leftElbow],
  RWrist: [L.rightWrist],
  LWrist: [L.leftWrist],
  midHip: [L.leftHip, L.rightHip],
  RHip: [L.rightHip],
  LHip: [L.leftHip],
  RKnee: [L.rightKnee],
  LKnee: [L.leftKnee],
  RAnkle: [L.rightAnkle],
  LAnkle: [L.leftAnkle],
  RHeel: [L.rightHeel],
  LHeel: [L.leftHeel],
  RBigToe: [L.rightFootIndex],
  LBigToe: [L.leftFootIndex],
};

const SOURCE_TABLE = VIDEO_KEYPOINTS.map((name) => SOURCES[name]);

/**
 * Fills `out` (VIDEO_KEYPOINTS x [x, y, confidence]) from BlazePose landmarks given as image x, y
 * (`landmarksXY`, 2 a landmark) and confidences; a midpoint takes the lower of its two confidences.
 */
export function videoKeypointsFromBlazePose(
  landmarksXY: Float64Array,
  confidence: Float64Array,
  out: Float32Array,
): void {
  SOURCE_TABLE.forEach((sources, keypoint) => {
    let x = 0;
    let y = 0;
    let lowest = 1;
    for (const landmark of sources) {
      x += landmarksXY[2 * landmark];
      y += landmarksXY[2 * landmark + 1];
      lowest = Math.min(lowest, confidence[landmark]);
    }
    out[3 * keypoint] = x / sources.length;
    out[3 * keypoint + 1] = y / sources.length;
    out[3 * keypoint + 2] = lowest;
  });
}
