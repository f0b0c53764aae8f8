/**
 * Second-order low-pass Butterworth filter design, as scipy.signal.butter(2, cutoffHz, fs=sampleRateHz)
 * computes it: analogue prototype poles at angles ±45° (Butterworth 1930), frequency pre-warping so that
 * the digital filter is exactly −3 dB at the cutoff, then the bilinear transform.
 */
export interface BiquadCoefficients {
  /** Numerator [b0, b1, b2]. */
  b: Float64Array;
  /** Denominator [1, a1, a2] (normalised so that a0 = 1). */
  a: Float64Array;
}

export function designButterworthLowpass2(cutoffHz: number, sampleRateHz: number): BiquadCoefficients {
  const nyquistHz = sampleRateHz / 2;
  if (!(cutoffHz > 0) || !(cutoffHz < nyquistHz)) {
    throw new RangeError(
      `Butterworth cutoff must lie strictly between 0 and ${nyquistHz} Hz (half of ${sampleRateHz} Hz); got ${cutoffHz} Hz`,
    );
  }
  // Pre-warped analogue cutoff, in units of the bilinear transform's 2·fs: K = tan(π fc / fs).
  const k = Math.tan((Math.PI * cutoffHz) / sampleRateHz);
  const kSquared = k * k;
  const norm = 1 / (1 + Math.SQRT2 * k + kSquared);
  const b0 = kSquared * norm;
  return {
    b: Float64Array.of(b0, 2 * b0, b0),
    a: Float64Array.of(1, 2 * (kSquared - 1) * norm, (1 - Math.SQRT2 * k + kSquared) * norm),
  };
}

/** Magnitude of the filter's frequency response at frequencyHz (1 = unity gain). */
export function biquadGain({ b, a }: BiquadCoefficients, frequencyHz: number, sampleRateHz: number): number {
  const omega = (2 * Math.PI * frequencyHz) / sampleRateHz;
  const c1 = Math.cos(omega);
  const s1 = Math.sin(omega);
  const c2 = Math.cos(2 * omega);
  const s2 = Math.sin(2 * omega);
  // H(e^{jω}) = (b0 + b1 e^{-jω} + b2 e^{-2jω}) / (1 + a1 e^{-jω} + a2 e^{-2jω})
  const numRe = b[0] + b[1] * c1 + b[2] * c2;
  const numIm = -(b[1] * s1 + b[2] * s2);
  const denRe = a[0] + a[1] * c1 + a[2] * c2;
  const denIm = -(a[1] * s1 + a[2] * s2);
  return Math.hypot(numRe, numIm) / Math.hypot(denRe, denIm);
}
