import { designButterworthLowpass2 } from '../filter/butterworth.ts';
import { filtfiltBiquad } from '../filter/filtfilt.ts';

/** Zero-phase 2nd-order Butterworth low-pass (the engine's filter), left as is when the cutoff is above Nyquist. */
export function lowpass(signal: Float64Array, sampleRateHz: number, cutoffHz: number): Float64Array {
  if (cutoffHz >= sampleRateHz / 2) return Float64Array.from(signal);
  return filtfiltBiquad(designButterworthLowpass2(cutoffHz, sampleRateHz), signal);
}

export interface PeakOptions {
  /** Peaks closer than this (frames) keep only the higher one. */
  minDistance?: number;
  /** How far a peak must stand above the higher of the lowest points separating it from higher peaks (scipy's prominence). */
  minProminence?: number;
}

/** Frames of the local maxima of a signal, in time order (as scipy.signal.find_peaks with distance and prominence). */
export function findPeaks(signal: ArrayLike<number>, options: PeakOptions = {}): number[] {
  const n = signal.length;
  const candidates: number[] = [];
  for (let i = 1; i < n - 1; i++) {
    if (!(signal[i] > signal[i - 1])) continue;
    // A plateau counts once, at its middle.
    let j = i;
    while (j + 1 < n && signal[j + 1] === signal[i]) j++;
    if (j + 1 < n && signal[j + 1] < signal[i]) candidates.push(Math.floor((i + j) / 2));
    i = j;
  }
  let peaks = candidates;
  if (options.minProminence !== undefined) {
    peaks = peaks.filter((p) => prominence(signal, p) >= options.minProminence!);
  }
  if (options.minDistance !== undefined && options.minDistance > 1) {
    const kept: number[] = [];
    for (const p of [...peaks].sort((a, b) => signal[b] - signal[a])) {
      if (kept.every((k) => Math.abs(k - p) >= options.minDistance!)) kept.push(p);
    }
    peaks = kept.sort((a, b) => a - b);
  }
  return peaks;
}

/** Local minima: the peaks of the negated signal. */
export function findValleys(signal: Float64Array, options: PeakOptions = {}): number[] {
  return findPeaks(
    signal.map((v) => -v),
    options,
  );
}

function prominence(signal: ArrayLike<number>, peak: number): number {
  const height = signal[peak];
  let leftMin = height;
  for (let i = peak - 1; i >= 0 && signal[i] <= height; i--) leftMin = Math.min(leftMin, signal[i]);
  let rightMin = height;
  for (let i = peak + 1; i < signal.length && signal[i] <= height; i++) rightMin = Math.min(rightMin, signal[i]);
  return height - Math.max(leftMin, rightMin);
}

/** `points` samples of a signal from frame `start` to frame `end` inclusive, linearly interpolated (time normalisation). */
export function resample(signal: ArrayLike<number>, start: number, end: number, points = 101): number[] {
  const out: number[] = [];
  for (let k = 0; k < points; k++) {
    const x = start + ((end - start) * k) / (points - 1);
    const i = Math.min(Math.floor(x), signal.length - 2);
    const t = x - i;
    out.push(signal[i] * (1 - t) + signal[i + 1] * t);
  }
  return out;
}

/** Mean and sample standard deviation (0 for fewer than two values). */
export function meanStd(values: readonly number[]): { mean: number; std: number } {
  if (values.length === 0) return { mean: Number.NaN, std: 0 };
  const mean = values.reduce((sum, v) => sum + v, 0) / values.length;
  if (values.length < 2) return { mean, std: 0 };
  const variance = values.reduce((sum, v) => sum + (v - mean) ** 2, 0) / (values.length - 1);
  return { mean, std: Math.sqrt(variance) };
}

/** Pointwise mean and SD of equally long curves. */
export function meanStdCurve(curves: readonly number[][]): { mean: number[]; std: number[] } {
  const length = curves[0]?.length ?? 0;
  const mean: number[] = [];
  const std: number[] = [];
  for (let k = 0; k < length; k++) {
    const stats = meanStd(curves.map((curve) => curve[k]));
    mean.push(stats.mean);
    std.push(stats.std);
  }
  return { mean, std };
}

export function maxOf(signal: ArrayLike<number>, start = 0, end = signal.length): number {
  let max = -Infinity;
  for (let i = start; i < end; i++) max = Math.max(max, signal[i]);
  return max;
}

export function minOf(signal: ArrayLike<number>, start = 0, end = signal.length): number {
  let min = Infinity;
  for (let i = start; i < end; i++) min = Math.min(min, signal[i]);
  return min;
}

/** The value below which `fraction` of the samples lie (nearest rank). */
export function percentile(signal: ArrayLike<number>, fraction: number): number {
  const sorted = Array.from(signal).sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.round(fraction * (sorted.length - 1))))];
}

/** Rounds for the result JSON (values to 4 decimals keep mm and ms and 0.01°). */
export function round(value: number, decimals = 4): number {
  const factor = 10 ** decimals;
  return Math.round(value * factor) / factor;
}
