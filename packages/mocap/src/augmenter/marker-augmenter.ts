import type { MarkerTrajectories } from '../formats/trc.ts';
import { type KerasSequentialModel, predictSequence } from './keras-sequential.ts';
import type { AugmenterMarkerSet } from './opencap-augmenter-markers.ts';

/** One trained network of an augmenter (OpenCap splits it into a body model and an arm model). */
export interface AugmenterPart {
  markers: AugmenterMarkerSet;
  network: KerasSequentialModel;
  /** Marker the inputs are taken relative to (metadata.json reference_marker; midHip in OpenCap). */
  referenceMarker: string;
  /** z-scoring of the input features (mean.npy / std.npy), one value per input. */
  featureMean: Float64Array;
  featureStd: Float64Array;
}

export interface MarkerAugmenter {
  /** Where it came from, for reports ("lstm", a directory name). */
  label: string;
  parts: AugmenterPart[];
}

export interface AugmenterSubject {
  heightM: number;
  massKg: number;
}

export class MissingAugmenterInputError extends Error {
  override name = 'MissingAugmenterInputError';
}

/** Markers the pipeline can stand in for by the midpoint of a pair (OpenPose's Neck and MidHip are such midpoints). */
const MIDPOINT_MARKERS: Record<string, [string, string]> = {
  Neck: ['RShoulder', 'LShoulder'],
  midHip: ['RHip', 'LHip'],
};

/** Frames x 3 trajectory of a marker by name, or the midpoint of its defining pair when it is absent. */
export function markerTrack(trajectories: MarkerTrajectories, name: string): Float64Array | undefined {
  const { markerNames, positionsM } = trajectories;
  const frameCount = trajectories.timesS.length;
  const markerCount = markerNames.length;
  const index = markerNames.indexOf(name);
  const track = new Float64Array(frameCount * 3);
  if (index >= 0) {
    for (let f = 0; f < frameCount; f++) {
      for (let a = 0; a < 3; a++) track[f * 3 + a] = positionsM[(f * markerCount + index) * 3 + a];
    }
    return track;
  }
  const pair = Object.hasOwn(MIDPOINT_MARKERS, name) ? MIDPOINT_MARKERS[name] : undefined;
  if (!pair) return undefined;
  const left = markerNames.indexOf(pair[0]);
  const right = markerNames.indexOf(pair[1]);
  if (left < 0 || right < 0) return undefined;
  for (let f = 0; f < frameCount; f++) {
    for (let a = 0; a < 3; a++) {
      track[f * 3 + a] =
        0.5 * (positionsM[(f * markerCount + left) * 3 + a] + positionsM[(f * markerCount + right) * 3 + a]);
    }
  }
  return track;
}

/**
 * Fills missing samples (NaN) of a frames x 3 track in place by linear interpolation between the
 * nearest present frames (held constant before the first and after the last), so that one missing
 * keypoint does not poison the LSTM state for the rest of the trial. Returns which frames were missing.
 */
function fillGaps(track: Float64Array, frameCount: number): Uint8Array {
  const missing = new Uint8Array(frameCount);
  for (let f = 0; f < frameCount; f++)
    missing[f] = Number.isNaN(track[f * 3]) || Number.isNaN(track[f * 3 + 1]) || Number.isNaN(track[f * 3 + 2]) ? 1 : 0;
  let previous = -1;
  for (let f = 0; f <= frameCount; f++) {
    if (f < frameCount && missing[f]) continue;
    // Frames previous+1 .. f-1 are missing; previous and f (if < frameCount) are present.
    for (let g = previous + 1; g < f; g++) {
      for (let a = 0; a < 3; a++) {
        if (previous < 0 && f >= frameCount) track[g * 3 + a] = 0;
        else if (previous < 0) track[g * 3 + a] = track[f * 3 + a];
        else if (f >= frameCount) track[g * 3 + a] = track[previous * 3 + a];
        else
          track[g * 3 + a] =
            track[previous * 3 + a] + ((g - previous) / (f - previous)) * (track[f * 3 + a] - track[previous * 3 + a]);
      }
    }
    previous = f;
  }
  return missing;
}

/** The video keypoints every part of this augmenter needs (a BlazePose trial lacks the small toes, for instance). */
export function missingAugmenterInputs(trajectories: MarkerTrajectories, augmenter: MarkerAugmenter): string[] {
  const missing = new Set<string>();
  for (const part of augmenter.parts) {
    for (const name of [part.referenceMarker, ...part.markers.featureMarkers]) {
      if (!trajectories.markerNames.includes(name) && !markerTrack(trajectories, name)) missing.add(name);
    }
  }
  return [...missing];
}

/**
 * Predicts the augmenter's anatomical markers from video keypoints, as OpenCap's augmentTRC does:
 * inputs are the feature keypoints minus the reference marker, divided by the subject's height,
 * followed by height and mass, z-scored with the training mean/std; the outputs are multiplied by
 * the height and offset by the reference marker again. The whole trial is one sequence (LSTM state
 * runs from the first frame). Gaps in the keypoints are bridged linearly for the network, and the
 * predicted markers are NaN in the frames where any of a network's inputs was missing. Returns only
 * the predicted markers, on the keypoints' time base.
 * OpenCap then shifts everything so the lowest marker is 1 cm above y = 0; that is left to the caller.
 */
export function augmentMarkers(
  keypoints: MarkerTrajectories,
  subject: AugmenterSubject,
  augmenter: MarkerAugmenter,
  onProgress?: (done: number, total: number) => void,
): MarkerTrajectories {
  const missing = missingAugmenterInputs(keypoints, augmenter);
  if (missing.length > 0) {
    throw new MissingAugmenterInputError(
      `The marker augmenter "${augmenter.label}" needs the keypoints ${missing.join(', ')}, which this trial lacks. ` +
        'Use a pose model that produces them, or run without the augmenter (IK on the keypoints).',
    );
  }
  if (!(subject.heightM > 0) || !(subject.massKg > 0)) {
    throw new RangeError(
      `The augmenter needs the subject's height and mass (got ${subject.heightM} m, ${subject.massKg} kg).`,
    );
  }

  const frameCount = keypoints.timesS.length;
  const markerNames = augmenter.parts.flatMap((part) => [...part.markers.responseMarkers]);
  const outputCount = markerNames.length;
  const positionsM = new Float64Array(frameCount * outputCount * 3);
  let firstOutput = 0;
  augmenter.parts.forEach((part, partIndex) => {
    const reference = markerTrack(keypoints, part.referenceMarker)!;
    const features = part.markers.featureMarkers.map((name) => markerTrack(keypoints, name)!);
    const inputMissing = new Uint8Array(frameCount);
    for (const track of [reference, ...features]) {
      fillGaps(track, frameCount).forEach((missing, f) => {
        inputMissing[f] |= missing;
      });
    }
    const inputSize = part.network.inputSize;
    const inputs = new Float64Array(frameCount * inputSize);
    for (let f = 0; f < frameCount; f++) {
      const row = f * inputSize;
      features.forEach((track, m) => {
        for (let a = 0; a < 3; a++)
          inputs[row + m * 3 + a] = (track[f * 3 + a] - reference[f * 3 + a]) / subject.heightM;
      });
      inputs[row + inputSize - 2] = subject.heightM;
      inputs[row + inputSize - 1] = subject.massKg;
      for (let k = 0; k < inputSize; k++)
        inputs[row + k] = (inputs[row + k] - part.featureMean[k]) / part.featureStd[k];
    }

    const outputs = predictSequence(part.network, inputs, frameCount);
    const partMarkers = part.markers.responseMarkers.length;
    for (let f = 0; f < frameCount; f++) {
      for (let m = 0; m < partMarkers; m++) {
        for (let a = 0; a < 3; a++) {
          positionsM[(f * outputCount + firstOutput + m) * 3 + a] = inputMissing[f]
            ? Number.NaN
            : outputs[(f * partMarkers + m) * 3 + a] * subject.heightM + reference[f * 3 + a];
        }
      }
    }
    firstOutput += partMarkers;
    onProgress?.(partIndex + 1, augmenter.parts.length);
  });

  return { markerNames, frameRateHz: keypoints.frameRateHz, timesS: keypoints.timesS.slice(), positionsM };
}
