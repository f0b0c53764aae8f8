import { designButterworthLowpass2 } from './butterworth.ts';
import { filtfiltBiquad } from './filtfilt.ts';

/**
 * Zero-lag low-pass filtering of 3D trajectories (frames × points × 3, NaN where missing) with a
 * 2nd-order Butterworth run forward and backward (DESIGN §2 step 6). Each contiguous run of valid
 * samples is filtered on its own, so gaps stay gaps and never smear into their neighbours.
 * A cutoff at or above half the sample rate is the identity (the Butterworth's limit) and copies.
 */
export function filterTrajectories(
  positions: Float64Array,
  frameCount: number,
  pointCount: number,
  cutoffHz: number,
  sampleRateHz: number,
): Float64Array {
  const filtered = new Float64Array(positions);
  if (cutoffHz >= sampleRateHz / 2 || frameCount < 2) return filtered;
  const coefficients = designButterworthLowpass2(cutoffHz, sampleRateHz);
  const run = new Float64Array(frameCount);
  const result = new Float64Array(frameCount);
  const scratch = new Float64Array(frameCount + 18);
  const stride = pointCount * 3;

  for (let channel = 0; channel < stride; channel++) {
    let frame = 0;
    while (frame < frameCount) {
      while (frame < frameCount && Number.isNaN(positions[frame * stride + channel])) frame++;
      const runStart = frame;
      while (frame < frameCount && !Number.isNaN(positions[frame * stride + channel])) frame++;
      const runLength = frame - runStart;
      if (runLength < 2) continue;
      const runView = run.subarray(0, runLength);
      for (let i = 0; i < runLength; i++) runView[i] = positions[(runStart + i) * stride + channel];
      filtfiltBiquad(coefficients, runView, result.subarray(0, runLength), scratch);
      for (let i = 0; i < runLength; i++) filtered[(runStart + i) * stride + channel] = result[i];
    }
  }
  return filtered;
}
