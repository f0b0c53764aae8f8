import type { MarkerTrajectories } from '../formats/trc.ts';

/** Markers of two recordings on the same time base side by side (the second's names win no ties: duplicates are dropped from it). */
export function mergeMarkerTrajectories(first: MarkerTrajectories, second: MarkerTrajectories): MarkerTrajectories {
  const frameCount = first.timesS.length;
  if (second.timesS.length !== frameCount) {
    throw new RangeError(`Cannot merge markers of ${frameCount} and ${second.timesS.length} frames; they must share a time base.`);
  }
  const extra = second.markerNames.map((name, i) => [name, i] as const).filter(([name]) => !first.markerNames.includes(name));
  const markerNames = [...first.markerNames, ...extra.map(([name]) => name)];
  const a = first.markerNames.length;
  const b = second.markerNames.length;
  const total = markerNames.length;
  const positionsM = new Float64Array(frameCount * total * 3);
  for (let f = 0; f < frameCount; f++) {
    positionsM.set(first.positionsM.subarray(f * a * 3, (f + 1) * a * 3), f * total * 3);
    extra.forEach(([, source], k) => {
      positionsM.set(second.positionsM.subarray((f * b + source) * 3, (f * b + source) * 3 + 3), (f * total + a + k) * 3);
    });
  }
  return { markerNames, frameRateHz: first.frameRateHz, timesS: first.timesS.slice(), positionsM };
}
