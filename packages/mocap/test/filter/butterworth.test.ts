import { describe, expect, it } from 'vitest';
import { biquadGain, designButterworthLowpass2 } from '../../src/filter/butterworth.ts';
import { resolveCutoffHz } from '../../src/filter/cutoff.ts';
import { filterTrajectories } from '../../src/filter/filter-trajectories.ts';
import { filtfiltBiquad } from '../../src/filter/filtfilt.ts';

// Reference coefficients printed by SciPy 1.17.1: scipy.signal.butter(2, fc, fs=fs).
const scipyButter = [
  { fs: 60, fc: 6, b: [0.06745527, 0.13491055, 0.06745527], a: [1, -1.1429805, 0.4128016] },
  { fs: 60, fc: 12, b: [0.20657208, 0.41314417, 0.20657208], a: [1, -0.36952738, 0.19581571] },
  { fs: 240, fc: 12, b: [0.02008337, 0.04016673, 0.02008337], a: [1, -1.56101808, 0.64135154] },
  { fs: 30, fc: 14, b: [0.86230184, 1.72460367, 0.86230184], a: [1, 1.70555215, 0.7436552] },
];

describe('2nd-order Butterworth design', () => {
  it.each(scipyButter)('matches scipy.signal.butter for fs=$fs Hz, fc=$fc Hz', ({ fs, fc, b, a }) => {
    const design = designButterworthLowpass2(fc, fs);
    b.forEach((value, i) => expect(design.b[i]).toBeCloseTo(value, 7));
    a.forEach((value, i) => expect(design.a[i]).toBeCloseTo(value, 7));
  });

  it('is −3 dB at the cutoff, unity at DC and zero at Nyquist', () => {
    const design = designButterworthLowpass2(12, 120);
    expect(biquadGain(design, 12, 120)).toBeCloseTo(Math.SQRT1_2, 10);
    expect(biquadGain(design, 0, 120)).toBeCloseTo(1, 12);
    expect(biquadGain(design, 60, 120)).toBeLessThan(1e-12);
  });

  it('refuses a cutoff at or above half the sample rate', () => {
    expect(() => designButterworthLowpass2(30, 60)).toThrow(RangeError);
    expect(() => designButterworthLowpass2(0, 60)).toThrow(RangeError);
  });
});

describe('zero-phase filtering (filtfilt)', () => {
  it('reproduces scipy.signal.filtfilt with odd padding of 9 samples', () => {
    const signal = [0, 1, 3, 2, 5, 4, 6, 8, 7, 9, 12, 11, 10, 13, 15, 14, 16, 18, 17, 20];
    // scipy.signal.filtfilt(*butter(2, 6, fs=60), signal)
    const expected = [
      -1.2799244117338016e-3, 1.0476384372690768, 2.0625681987257223, 3.0436268776713105, 4.0159523121904268,
      5.0087809993220107, 6.0357052369551374, 7.0837165268142837, 8.1316497445243971, 9.1546048144980894,
      10.106665984796157, 10.976016134504986, 11.838524575624174, 12.774893831635286, 13.788586845794454,
      14.860834846783057, 16.004991273389418, 17.241589516838211, 18.582130972878787, 20.008388889627746,
    ];
    const filtered = filtfiltBiquad(designButterworthLowpass2(6, 60), signal);
    expected.forEach((value, i) => expect(filtered[i]).toBeCloseTo(value, 9));
  });

  it('shortens the padding on short signals as scipy does with padlen = n − 1', () => {
    // scipy.signal.filtfilt(*butter(2, 6, fs=60), [1, 2, 4, 3, 5], padlen=4)
    const expected = [0.9442577484721294, 2.0518399917473076, 3.1431164877763, 4.178114773063237, 5.1186300150462545];
    const filtered = filtfiltBiquad(designButterworthLowpass2(6, 60), [1, 2, 4, 3, 5]);
    expected.forEach((value, i) => expect(filtered[i]).toBeCloseTo(value, 9));
  });

  it('passes a slow sine without lag and halves a sine at the cutoff (gain² = 0.5)', () => {
    const fs = 100;
    const n = 2000;
    const design = designButterworthLowpass2(10, fs);
    const amplitudeAfter = (frequencyHz: number) => {
      const signal = Float64Array.from({ length: n }, (_, i) => Math.sin((2 * Math.PI * frequencyHz * i) / fs));
      const filtered = filtfiltBiquad(design, signal);
      // Least-squares fit of a sin + b cos over the middle, away from the edges.
      let ss = 0,
        sc = 0,
        cc = 0,
        ys = 0,
        yc = 0;
      for (let i = 500; i < 1500; i++) {
        const s = Math.sin((2 * Math.PI * frequencyHz * i) / fs);
        const c = Math.cos((2 * Math.PI * frequencyHz * i) / fs);
        ss += s * s;
        sc += s * c;
        cc += c * c;
        ys += filtered[i] * s;
        yc += filtered[i] * c;
      }
      const det = ss * cc - sc * sc;
      return { inPhase: (ys * cc - yc * sc) / det, quadrature: (yc * ss - ys * sc) / det };
    };
    const slow = amplitudeAfter(1);
    expect(slow.inPhase).toBeCloseTo(1, 3);
    expect(Math.abs(slow.quadrature)).toBeLessThan(1e-6);
    const atCutoff = amplitudeAfter(10);
    expect(atCutoff.inPhase).toBeCloseTo(0.5, 3);
    expect(Math.abs(atCutoff.quadrature)).toBeLessThan(1e-6);
    const fast = amplitudeAfter(30);
    expect(Math.abs(fast.inPhase)).toBeLessThan(0.02);
  });
});

describe('trajectory filtering', () => {
  it('filters each run between gaps separately and keeps the gaps', () => {
    const frames = 60;
    const positions = new Float64Array(frames * 3);
    for (let f = 0; f < frames; f++) {
      positions[f * 3] = f < 30 ? 1 : 5;
      positions[f * 3 + 1] = Math.sin(f / 5);
      positions[f * 3 + 2] = f;
    }
    for (let c = 0; c < 3; c++) positions[29 * 3 + c] = Number.NaN;
    const filtered = filterTrajectories(positions, frames, 1, 6, 60);
    expect(Number.isNaN(filtered[29 * 3])).toBe(true);
    // A constant run stays constant: the step at the gap does not leak into either side.
    for (let f = 0; f < 29; f++) expect(filtered[f * 3]).toBeCloseTo(1, 12);
    for (let f = 30; f < frames; f++) expect(filtered[f * 3]).toBeCloseTo(5, 12);
    // A ramp is not delayed (a causal filter would lag it by about 4 frames here): odd padding keeps
    // every sample within 0.02 of the line, as with scipy.signal.filtfilt.
    for (let f = 0; f < frames; f++) if (f !== 29) expect(Math.abs(filtered[f * 3 + 2] - f)).toBeLessThan(0.02);
  });

  it('is the identity when the cutoff is half the frame rate', () => {
    const positions = Float64Array.from({ length: 30 }, () => Math.random());
    expect(filterTrajectories(positions, 10, 1, 30, 60)).toEqual(positions);
  });
});

describe('cutoff rule (spec §5, §9)', () => {
  it("uses 12 Hz for gait and half the frame rate otherwise when 'default'", () => {
    expect(resolveCutoffHz('default', 60, true)).toEqual({ cutoffHz: 12, passThrough: false });
    expect(resolveCutoffHz('default', 120, false)).toEqual({ cutoffHz: 60, passThrough: true });
  });
  it('clamps to half the frame rate with the spec warning', () => {
    expect(resolveCutoffHz(40, 60, false)).toEqual({
      cutoffHz: 30,
      passThrough: true,
      warning: 'Too large filter frequency. Using half the framerate (30 Hz) instead.',
    });
  });
  it('keeps a valid number and falls back to default on invalid values', () => {
    expect(resolveCutoffHz('8', 60, false)).toEqual({ cutoffHz: 8, passThrough: false });
    expect(resolveCutoffHz(-3, 60, true)).toEqual({
      cutoffHz: 12,
      passThrough: false,
      warning: 'Invalid filter frequency. Using default.',
    });
    expect(resolveCutoffHz('abc', 240, false).warning).toBe('Invalid filter frequency. Using default.');
  });
});
