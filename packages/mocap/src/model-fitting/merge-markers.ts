import type { MarkerTrajectories } from '../formats/trc.ts';

/** Markers of two recordings on the same time base side by side (the second's names win no ties: duplicates are dropped from it). */
export function mergeMarkerTrajectories(first: MarkerTrajectories, second: MarkerTrajectories): MarkerTrajectories {
  const frameCount = first.timesS.length;
  if (second.timesS.length !== frameCount) {
    throw new RangeError(
      `Cannot merge markers of ${frameCount} and ${second.timesS.length} frames; they must share a time base.`,
    );
  }
  const extra = second.markerNames
    .map((name, i) => [name, i] as const)
    .filter(([name]) => !first.markerNames.includes(name));
  const markerNames = [...first.markerNames, ...extra.map(([name]) => name)];
  const a = first.markerNames.length;
  const b = second.markerNames.length;
  const total = markerNames.length;
  const positionsM = new Float64Array(frameCount * total * 3);
  for (let f = 0; f < frameCount; f++) {
    positionsM.set(first.positionsM.subarray(f * a * 3, (f + 1) * a * 3), f * total * 3);
    extra.forEach(([, source], k) => {
      positionsM.set(
        second.positionsM.subarray((f * b + source) * 3, (f * b + source) * 3 + 3),
        (f * total + a + k) * 3,
      );
    });
  }
  return { markerNames, frameRateHz: first.frameRateHz, timesS: first.timesS.slice(), positionsM };
}

/**
 * Keypoint sets without OpenPose's midHip (OpenPose BODY_25B, Pose2Sim's .trc files) get it as
 * OpenPose and Kinetrace define it: the mid-point of the two hip keypoints. Others come back as they are.
 */
export function withMidHip(markers: MarkerTrajectories): MarkerTrajectories {
  const right = markers.markerNames.indexOf('RHip');
  const left = markers.markerNames.indexOf('LHip');
  if (markers.markerNames.includes('midHip') || right < 0 || left < 0) return markers;
  const count = markers.markerNames.length;
  const midHip: MarkerTrajectories = {
    markerNames: ['midHip'],
    frameRateHz: markers.frameRateHz,
    timesS: markers.timesS,
    positionsM: new Float64Array(markers.timesS.length * 3),
  };
  for (let f = 0; f < markers.timesS.length; f++) {
    for (let a = 0; a < 3; a++)
      midHip.positionsM[f * 3 + a] =
        (markers.positionsM[(f * count + right) * 3 + a] + markers.positionsM[(f * count + left) * 3 + a]) / 2;
  }
  return mergeMarkerTrajectories(markers, midHip);
}
