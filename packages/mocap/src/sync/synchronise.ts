import { ProcessingError } from '../pipeline/processing-error.ts';
import { correlationPeaks, crossCorrelate, type CorrelationPeak } from './cross-correlation.ts';
import type { KeypointSeries } from './keypoint-series.ts';
import { MOTION_SIGNAL_KINDS, motionSignal, type MotionSignalKind } from './motion-signals.ts';
import { resampleAt } from './resample.ts';

/**
 * Synchronisation of cameras from their 2D keypoints (DESIGN §2 step 4). Phones start within a
 * fraction of a second of each other; starting from their reported start times, each camera's lag
 * to a reference camera is refined by cross-correlating motion signals (wrist vertical velocity,
 * ankle speed, whole-body speed) resampled to a common time grid finer than either frame rate, so
 * that cameras at different frame rates get a sub-frame lag. Lags are searched within ±maxLagS of
 * the initial guess (2 s: phones are never further apart, and OpenCap searches a similar window).
 * Several lags can correlate almost equally well (periodic movement like gait, or signals that
 * look different from different viewpoints). With calibrated cameras, the optional
 * `reprojectionErrorPx` callback breaks the tie: every tied lag, and the phones' own start times,
 * is scored by how well the cameras' triangulation reprojects at that lag, the best are refined to
 * a sub-frame lag, and the lowest error wins, as OpenCap picks between its sync methods.
 *
 * Convention: camera c's frame with timestamp τ happened at shared time τ + offsetsS[c].
 */
export interface SynchroniseOptions {
  /** Seconds to add to each camera's timestamps as the initial guess (from the phones' start times). */
  initialOffsetsS?: readonly number[];
  /** Largest correction searched around the initial guess, seconds. */
  maxLagS?: number;
  /** Signals to correlate; by default all. Gait trials are best served by 'ankleSpeed'. */
  signals?: readonly MotionSignalKind[];
  /** Index of the camera the others are aligned to; by default the one with the highest frame rate. */
  referenceCamera?: number;
  /** A lag needs at least this peak correlation to count as found. */
  minCorrelation?: number;
  /** When no lag is found for a camera: keep its initial offset (true) or throw SYNC_NOT_FOUND (false). */
  fallbackToInitialOffsets?: boolean;
  /**
   * Tie-breaker: the median reprojection error (px) of camera `camera` triangulated with the others
   * when it has offset `offsetS` and the others `offsetsS` (the initial ones when not given).
   */
  reprojectionErrorPx?: (camera: number, offsetS: number, offsetsS?: readonly number[]) => number;
  cameraNames?: readonly string[];
}

export interface CameraSync {
  /** Seconds added to this camera's timestamps to put it on the shared clock. */
  offsetS: number;
  /** Correction found relative to the initial guess, seconds and frames of this camera. */
  lagS: number;
  lagFrames: number;
  /** Pearson correlation at the chosen lag (1 for the reference camera). */
  correlation: number;
  /**
   * 0..1: the chosen lag's correlation minus that of the best rival lag at least 0.1 s away (or of
   * zero when there is none), or, with calibrated cameras, the share of the start times'
   * reprojection error the lag removes when that is larger. Near 0 the lag is ambiguous; near 1
   * it is unmistakable.
   */
  confidence: number;
  signal: MotionSignalKind | 'reference' | 'initial';
  /** Reprojection error with the reference camera at this lag, when the tie-breaker ran. */
  reprojectionErrorPx?: number;
  /**
   * Whether the lag found was applied. False when it was not clear enough (a reprojection error
   * not clearly below the start times', or without calibration an ambiguous correlation): the
   * phones' start times then stand and lagS is 0. Always false for the reference camera.
   */
  refined: boolean;
  /** Reprojection error at the phones' start times, when the tie-breaker ran. */
  startTimesReprojectionErrorPx?: number;
}

export interface SyncResult {
  referenceCamera: number;
  cameras: CameraSync[];
  offsetsS: Float64Array;
}

export const DEFAULT_MAX_LAG_S = 2;
/** Correlations closer than this to the best are treated as ties (OpenCap-like tolerance, our choice). */
const TIE_TOLERANCE = 0.05;
const RIVAL_MIN_SEPARATION_S = 0.1;
/** A lag farther from the phones' start times must have a reprojection error 5 % lower to win (our choice). */
const PERIOD_TIE_TOLERANCE = 1.05;
/** Spacing of the reprojection scan of the whole lag range, frames (candidates are refined after). */
const REPROJECTION_SCAN_FRAMES = 2;
/** Grid oversampling relative to the fastest camera: half-frame resolution before peak refinement. */
const GRID_OVERSAMPLING = 2;
/**
 * A lag is applied only when it is clear. With calibrated cameras: its reprojection error is at
 * least MIN_REPROJECTION_GAIN lower than at the phones' start times (our choice: a margin well
 * above the run-to-run noise of a median over hundreds of points; on a short clip with two people
 * the lags correlation alone suggested reprojected worse than the start times). Without
 * calibration: its correlation stands MIN_CORRELATION_CONFIDENCE above any rival lag's (our choice:
 * such spurious lags came with 0.15-0.22).
 */
export const MIN_REPROJECTION_GAIN = 0.15;
/** A lag must leave at least this share of the shortest video overlapping, so that it is not chosen on a few frames. */
export const MIN_OVERLAP_SHARE = 0.5;
export const MIN_CORRELATION_CONFIDENCE = 0.3;

export function synchronise(cameras: readonly KeypointSeries[], options: SynchroniseOptions = {}): SyncResult {
  const cameraCount = cameras.length;
  const names = options.cameraNames ?? cameras.map((_, c) => `camera ${c + 1}`);
  const initialOffsetsS = options.initialOffsetsS ?? new Array<number>(cameraCount).fill(0);
  const maxLagS = options.maxLagS ?? DEFAULT_MAX_LAG_S;
  const signals = options.signals ?? MOTION_SIGNAL_KINDS;
  const minCorrelation = options.minCorrelation ?? 0.3;
  const referenceCamera = options.referenceCamera ?? fastestCamera(cameras);

  const gridStepS = 1 / (GRID_OVERSAMPLING * Math.max(...cameras.map((series) => series.fps)));
  const sharedStartS = Math.min(...cameras.map((series, c) => series.timestampsS[0] + initialOffsetsS[c]));
  const sharedEndS = Math.max(
    ...cameras.map((series, c) => series.timestampsS[series.frameCount - 1] + initialOffsetsS[c]),
  );
  const gridLength = Math.floor((sharedEndS - sharedStartS) / gridStepS) + 1;
  const maxLagSamples = Math.round(maxLagS / gridStepS);
  const shortestDurationS = Math.min(
    ...cameras.map((series) => series.timestampsS[series.frameCount - 1] - series.timestampsS[0]),
  );
  const minOverlapSamples = Math.max(3, Math.floor((MIN_OVERLAP_SHARE * shortestDurationS) / gridStepS));

  /** Signal of a camera on the grid, read on its own clock shifted by its initial offset. */
  const onGrid = (c: number, kind: MotionSignalKind): Float64Array => {
    const series = cameras[c];
    const gridTimesS = Float64Array.from(
      { length: gridLength },
      (_, j) => sharedStartS + j * gridStepS - initialOffsetsS[c],
    );
    return resampleAt(series.timestampsS, motionSignal(series, kind), gridTimesS);
  };
  const referenceSignals = new Map(signals.map((kind) => [kind, onGrid(referenceCamera, kind)]));

  const syncCamera = (c: number, offsetsS: readonly number[]): CameraSync => {
    const series = cameras[c];
    if (c === referenceCamera) {
      return {
        offsetS: initialOffsetsS[c],
        lagS: 0,
        lagFrames: 0,
        correlation: 1,
        confidence: 1,
        signal: 'reference',
        refined: false,
      };
    }
    const curves = signals.map((kind) => {
      const correlation = crossCorrelate(
        referenceSignals.get(kind)!,
        onGrid(c, kind),
        maxLagSamples,
        minOverlapSamples,
      );
      return { kind, correlation, peaks: correlationPeaks(correlation, maxLagSamples) };
    });
    // Candidate lags: each signal's best peak and the peaks that tie with it.
    const candidates: { lagS: number; signal: MotionSignalKind | 'initial' }[] = [];
    const addCandidate = (lagS: number, signal: MotionSignalKind | 'initial') => {
      if (!candidates.some((other) => Math.abs(other.lagS - lagS) < 0.5 / series.fps))
        candidates.push({ lagS, signal });
    };
    for (const { kind, peaks } of curves) {
      const best = peaks[0];
      if (!best || best.correlation < minCorrelation) continue;
      for (const peak of peaks) {
        if (peak.correlation < best.correlation - TIE_TOLERANCE) break;
        addCandidate(peak.lagSamples * gridStepS, kind);
      }
    }
    const correlated = candidates.length > 0;
    const notFound = () =>
      new ProcessingError(
        'SYNC_NOT_FOUND',
        `Could not synchronise ${names[c]} with ${names[referenceCamera]}: their movements do not match within ±${maxLagS} s. ` +
          'Make sure the person is visible to every camera and moves clearly (e.g. raise a hand) at the start of the trial, and that all phones start recording together.',
        [names[c]],
      );
    const unsynchronised: CameraSync = {
      offsetS: initialOffsetsS[c],
      lagS: 0,
      lagFrames: 0,
      correlation: 0,
      confidence: 0,
      signal: 'initial',
      refined: false,
    };

    let chosen: { lagS: number; signal: MotionSignalKind | 'initial'; reprojectionErrorPx?: number };
    if (options.reprojectionErrorPx) {
      // The phones' own start times are a candidate too, and so is the lowest error of a scan of the
      // whole range every REPROJECTION_SCAN_FRAMES frames (slow movement, as when balancing, can
      // correlate poorly and still reproject clearly better at one lag). Every candidate is scored
      // once; the two best are refined down to the lag with the lowest error, and the lowest error wins.
      addCandidate(0, 'initial');
      const score = options.reprojectionErrorPx;
      const errorAtLag = (lagS: number) => score(c, initialOffsetsS[c] + lagS, offsetsS);
      // Two views measure only each point's distance to the other view's epipolar line, and a time
      // lag also shortens that distance where the two views place a keypoint differently on a
      // moving body: on the Pose2Sim demo's hardware-synchronised cameras, the reprojection error of
      // cam03+cam04 (and of cam01+cam03) was lowest 3 frames off (17-20 % below the start times'),
      // where their movements correlate within a frame of the start times. So with two cameras the
      // reprojection error only picks among the lags the movement shows, and refines them within a frame.
      const twoViews = cameraCount === 2;
      const reach: RefinementReach = twoViews ? TWO_VIEW_REACH : WIDE_REACH;
      const refine = (lagS: number) => refineByReprojection(errorAtLag, lagS, 1 / series.fps, reach);
      if (!twoViews) {
        const scanStepS = REPROJECTION_SCAN_FRAMES / series.fps;
        let scanned = { lagS: 0, errorPx: Number.POSITIVE_INFINITY };
        for (let lagS = -Math.floor(maxLagS / scanStepS) * scanStepS; lagS <= maxLagS + 1e-9; lagS += scanStepS) {
          const errorPx = errorAtLag(lagS);
          if (errorPx < scanned.errorPx) scanned = { lagS, errorPx };
        }
        if (Number.isFinite(scanned.errorPx)) addCandidate(scanned.lagS, 'initial');
      }
      let best = candidates
        .map((candidate) => ({ ...candidate, reprojectionErrorPx: errorAtLag(candidate.lagS) }))
        .sort((x, y) => x.reprojectionErrorPx - y.reprojectionErrorPx)
        .slice(0, 2)
        .map((candidate) => ({ ...candidate, ...refine(candidate.lagS) }))
        .reduce((best, candidate) => (candidate.reprojectionErrorPx < best.reprojectionErrorPx ? candidate : best));
      // A repeated movement (steps, a looped clip) fits almost as well one period away. The phones
      // start within a fraction of a second of each other, so a farther lag must fit clearly better:
      // within 5 % of the best error, the smallest correction to their start times wins.
      const bestErrorPx = best.reprojectionErrorPx;
      for (const candidate of candidates) {
        if (
          Math.abs(candidate.lagS) >= Math.abs(best.lagS) ||
          Math.abs(candidate.lagS - best.lagS) < RIVAL_MIN_SEPARATION_S
        )
          continue;
        const refined = { ...candidate, ...refine(candidate.lagS) };
        // Only a distinct fit (another period) may replace the best; nearby lags are the refinement's call.
        if (Math.abs(refined.lagS - best.lagS) < RIVAL_MIN_SEPARATION_S) continue;
        if (
          refined.reprojectionErrorPx <= bestErrorPx * PERIOD_TIE_TOLERANCE &&
          Math.abs(refined.lagS) < Math.abs(best.lagS)
        )
          best = refined;
      }
      chosen = best;
      if (!Number.isFinite(best.reprojectionErrorPx) && !correlated) {
        if (options.fallbackToInitialOffsets) return unsynchronised;
        throw notFound();
      }
    } else if (correlated) {
      chosen = candidates.reduce((best, candidate) =>
        correlationAt(curves, candidate.lagS / gridStepS + maxLagSamples).correlation >
        correlationAt(curves, best.lagS / gridStepS + maxLagSamples).correlation
          ? candidate
          : best,
      );
    } else if (options.fallbackToInitialOffsets) {
      return unsynchronised;
    } else {
      throw notFound();
    }

    const atChosen = correlationAt(curves, chosen.lagS / gridStepS + maxLagSamples);
    const rival = atChosen.peaks.find(
      (peak) => Math.abs(peak.lagSamples * gridStepS - chosen.lagS) >= RIVAL_MIN_SEPARATION_S,
    );
    const correlation = Number.isNaN(atChosen.correlation) ? 0 : atChosen.correlation;
    const signal = chosen.signal === 'initial' && correlated ? atChosen.kind : chosen.signal;
    // Sync that knows when it does not know: the lag must be unambiguous and, with calibrated
    // cameras, make the views agree clearly better than the start times; otherwise they stand.
    // With calibrated cameras the reprojection is evidence too: the share of the start times'
    // error that the lag removes.
    const startTimesErrorPx = options.reprojectionErrorPx?.(c, initialOffsetsS[c], offsetsS);
    const reprojectionGain =
      startTimesErrorPx !== undefined && chosen.reprojectionErrorPx !== undefined && startTimesErrorPx > 0
        ? 1 - chosen.reprojectionErrorPx / startTimesErrorPx
        : 0;
    const correlationConfidence = clamp01(correlation - Math.max(0, rival?.correlation ?? 0));
    const confidence = Math.max(correlationConfidence, clamp01(reprojectionGain));
    const clear =
      startTimesErrorPx === undefined
        ? correlationConfidence >= MIN_CORRELATION_CONFIDENCE
        : reprojectionGain >= MIN_REPROJECTION_GAIN;
    const lagS = clear ? chosen.lagS : 0;
    return {
      offsetS: initialOffsetsS[c] + lagS,
      lagS,
      lagFrames: lagS * series.fps,
      correlation,
      confidence,
      signal,
      refined: clear,
      ...(clear && chosen.reprojectionErrorPx !== undefined
        ? { reprojectionErrorPx: chosen.reprojectionErrorPx }
        : startTimesErrorPx !== undefined
          ? { reprojectionErrorPx: startTimesErrorPx }
          : {}),
      ...(startTimesErrorPx !== undefined ? { startTimesReprojectionErrorPx: startTimesErrorPx } : {}),
    };
  };

  // One camera at a time, the clearest first: a lag is scored with the other cameras where they
  // are believed to be, so a camera whose start time is far off is corrected before the others
  // are scored against it.
  const offsetsS = initialOffsetsS.slice();
  let results = cameras.map((_, c) => syncCamera(c, offsetsS));
  const settled = new Set([referenceCamera]);
  while (options.reprojectionErrorPx && settled.size < cameraCount) {
    let clearest = -1;
    for (let c = 0; c < cameraCount; c++) {
      if (
        !settled.has(c) &&
        results[c].refined &&
        (clearest < 0 || results[c].confidence > results[clearest].confidence)
      )
        clearest = c;
    }
    if (clearest < 0) break;
    settled.add(clearest);
    offsetsS[clearest] = results[clearest].offsetS;
    results = results.map((result, c) => (settled.has(c) ? result : syncCamera(c, offsetsS)));
  }
  return { referenceCamera, cameras: results, offsetsS: Float64Array.from(results, (result) => result.offsetS) };
}

/** The signal that correlates best at a (fractional) index of the correlation curves, linearly interpolated. */
function correlationAt(
  curves: { kind: MotionSignalKind; correlation: Float64Array; peaks: CorrelationPeak[] }[],
  index: number,
) {
  let best = {
    kind: curves[0]?.kind ?? ('bodySpeed' as MotionSignalKind),
    correlation: Number.NaN,
    peaks: [] as CorrelationPeak[],
  };
  for (const curve of curves) {
    const below = Math.floor(index);
    const fraction = index - below;
    const a = curve.correlation[below];
    const b = curve.correlation[Math.min(curve.correlation.length - 1, below + 1)];
    const value = fraction === 0 ? a : a + (b - a) * fraction;
    if (!Number.isNaN(value) && !(value <= best.correlation))
      best = { kind: curve.kind, correlation: value, peaks: curve.peaks };
  }
  return best;
}

/** How far refineByReprojection looks from its guess: half frames each side, and window moves. */
interface RefinementReach {
  halfFrames: number;
  moves: number;
}
/** Three or more cameras: ±2 frames, moved on up to 4 times. */
const WIDE_REACH: RefinementReach = { halfFrames: 4, moves: 4 };
/** Two cameras: within a frame of the guess (see syncCamera). */
const TWO_VIEW_REACH: RefinementReach = { halfFrames: 2, moves: 0 };

/**
 * Scans lags within `reach` of a guess in half frames, moving the window on while the lowest
 * reprojection error is at its edge (at most `reach.moves` times), and returns the lowest, refined by a
 * parabola through its neighbours.
 */
function refineByReprojection(
  errorAtLag: (lagS: number) => number,
  firstGuessS: number,
  framePeriodS: number,
  reach: RefinementReach,
) {
  const stepS = framePeriodS / 2;
  const half = reach.halfFrames;
  const scan = (centreS: number) =>
    Array.from({ length: 2 * half + 1 }, (_, i) => errorAtLag(centreS + (i - half) * stepS));
  const lowest = (values: number[]) => values.reduce((best, value, i) => (value < values[best] ? i : best), 0);
  let guessS = firstGuessS;
  let errors = scan(guessS);
  let best = lowest(errors);
  for (let move = 0; move < reach.moves && (best === 0 || best === errors.length - 1); move++) {
    guessS += (best - half) * stepS;
    errors = scan(guessS);
    best = lowest(errors);
  }
  let offset = 0;
  if (best > 0 && best < errors.length - 1 && Number.isFinite(errors[best - 1] + errors[best + 1])) {
    const curvature = errors[best - 1] - 2 * errors[best] + errors[best + 1];
    if (curvature > 0) offset = (0.5 * (errors[best - 1] - errors[best + 1])) / curvature;
  }
  return { lagS: guessS + (best - half + offset) * stepS, reprojectionErrorPx: errors[best] };
}

function fastestCamera(cameras: readonly KeypointSeries[]): number {
  let best = 0;
  for (let c = 1; c < cameras.length; c++) if (cameras[c].fps > cameras[best].fps + 1e-6) best = c;
  return best;
}

function clamp01(value: number): number {
  return Math.min(1, Math.max(0, value));
}
