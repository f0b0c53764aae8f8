import type { AnalysisResult } from '@kinetrace/contracts';
import { AnalysisError } from './analysis-error.ts';
import { metric, type MetricSpec } from './metrics.ts';
import { findPeaks, findValleys, lowpass, meanStd, meanStdCurve, percentile, resample, round } from './signal.ts';
import { along, type Horizontal, TrialKinematics, unitHorizontal } from './trial-kinematics.ts';
import { SAGITTAL_LEG_ANGLES, timeSeries } from './datasets.ts';

type Side = 'r' | 'l';
const SIDES: Side[] = ['r', 'l'];
const SIDE_NAME = { r: 'right', l: 'left' } as const;
const other = (side: Side): Side => (side === 'r' ? 'l' : 'r');

/** Mean horizontal pelvis speed above which the subject walked overground rather than on a treadmill, m/s. */
const OVERGROUND_MIN_SPEED_M_PER_S = 0.25;
/** Heel strikes of one foot closer than this are one event (the shortest stride of fast walking is about 0.8 s). */
const MIN_STRIDE_S = 0.5;
/** Longest gait cycle taken as walking (slow pathological gait reaches about 2.5 s). */
const MAX_STRIDE_S = 3;
/**
 * Low-pass cutoff of the heel- and toe-ahead-of-pelvis signals whose extrema are the events, Hz: Winter's
 * cutoff for walking kinematics (Winter 2009, "Biomechanics and Motor Control of Human Movement", 4th ed.:
 * residual analysis puts the signal of walking markers below about 6 Hz), and the one OpenCap's gait
 * dashboard low-passes its kinematics at before finding the events (opencap-analysis gait handler,
 * filter_frequency = 6). The trial's own filter keeps more (12 Hz for gait) for the joint angles; at the flat
 * top of an extremum the jitter that leaves (a video keypoint's foot wobbles by a few cm from frame to frame)
 * moves the extreme frame by several frames.
 */
const EVENT_SIGNAL_CUTOFF_HZ = 6;

export interface GaitEvents {
  /** Walking direction on the floor (unit [x, z] in ground). */
  direction: Horizontal;
  overground: boolean;
  /** Frames of heel strikes and toe offs per foot, in time order. */
  heelStrike: Record<Side, number[]>;
  toeOff: Record<Side, number[]>;
}

/** One complete gait cycle of a foot: its heel strike, the other foot's toe off and heel strike, its toe off, its next heel strike (frames). */
export interface GaitCycle {
  side: Side;
  start: number;
  oppositeToeOff: number;
  oppositeHeelStrike: number;
  toeOff: number;
  end: number;
}

interface FootPoints {
  heel: Float64Array;
  toe: Float64Array;
}

/**
 * Heel strike and toe off by the coordinate-based method of Zeni, Richards & Higginson (2008),
 * "Two simple methods for determining gait events during treadmill and overground walking using
 * kinematic data", Gait & Posture 27(4):710–714: heel strike at each maximum of the heel's position
 * ahead of the pelvis along the walking direction, toe off at each minimum of the toe's, both signals
 * low-passed at EVENT_SIGNAL_CUTOFF_HZ. Heel = calcaneus origin, toe = toes (MTP) origin of the model,
 * both by forward kinematics.
 */
export function detectGaitEvents(kinematics: TrialKinematics): GaitEvents {
  const pelvis = kinematics.point('pelvis');
  const n = kinematics.frameCount;
  const dx = pelvis[3 * (n - 1)] - pelvis[0];
  const dz = pelvis[3 * (n - 1) + 2] - pelvis[2];
  const durationS = kinematics.timesS[n - 1] - kinematics.timesS[0];
  const overground = Math.hypot(dx, dz) / durationS > OVERGROUND_MIN_SPEED_M_PER_S;
  const direction = overground ? unitHorizontal(dx, dz) : kinematics.facing();
  const pelvisAlong = along(pelvis, direction);
  const minDistance = Math.round(MIN_STRIDE_S * kinematics.sampleRateHz);
  const heelStrike = { r: [] as number[], l: [] as number[] };
  const toeOff = { r: [] as number[], l: [] as number[] };
  for (const side of SIDES) {
    const { heel, toe } = footPoints(kinematics, side);
    const ahead = (point: Float64Array) =>
      lowpass(
        along(point, direction).map((v, f) => v - pelvisAlong[f]),
        kinematics.sampleRateHz,
        EVENT_SIGNAL_CUTOFF_HZ,
      );
    const heelAhead = ahead(heel);
    const toeAhead = ahead(toe);
    // A step swings the foot from behind the pelvis to in front of it: keep extrema that stand out by a third of that range.
    heelStrike[side] = findPeaks(heelAhead, { minDistance, minProminence: swing(heelAhead) / 3 });
    toeOff[side] = findValleys(toeAhead, { minDistance, minProminence: swing(toeAhead) / 3 });
  }
  return { direction, overground, heelStrike, toeOff };
}

function swing(signal: Float64Array): number {
  return percentile(signal, 0.95) - percentile(signal, 0.05);
}

function footPoints(kinematics: TrialKinematics, side: Side): FootPoints {
  return { heel: kinematics.point(`calcn_${side}`), toe: kinematics.point(`toes_${side}`) };
}

/** Complete cycles: consecutive heel strikes of a foot with, in order between them, the other foot's toe off and heel strike and this foot's toe off. */
export function gaitCycles(events: GaitEvents, sampleRateHz: number): GaitCycle[] {
  const cycles: GaitCycle[] = [];
  const after = (frames: number[], from: number, before: number) => frames.find((f) => f > from && f < before);
  for (const side of SIDES) {
    const strikes = events.heelStrike[side];
    for (let i = 0; i + 1 < strikes.length; i++) {
      const [start, end] = [strikes[i], strikes[i + 1]];
      if ((end - start) / sampleRateHz > MAX_STRIDE_S) continue;
      const oppositeToeOff = after(events.toeOff[other(side)], start, end);
      if (oppositeToeOff === undefined) continue;
      const oppositeHeelStrike = after(events.heelStrike[other(side)], oppositeToeOff, end);
      if (oppositeHeelStrike === undefined) continue;
      const toeOff = after(events.toeOff[side], oppositeHeelStrike, end);
      if (toeOff === undefined) continue;
      cycles.push({ side, start, oppositeToeOff, oppositeHeelStrike, toeOff, end });
    }
  }
  return cycles.sort((a, b) => a.start - b.start);
}

/** Per-cycle figures, before averaging. */
interface CycleFigures {
  strideLengthM: number;
  speedMPerS: number;
  cadenceStepsPerMin: number;
  stanceS: number;
  swingS: number;
  doubleSupportPercent: number;
  stepWidthM: number;
  /** Step length ending at this cycle's heel strikes: the opposite foot's (mid-cycle) and this foot's (end). */
  oppositeStepM: number;
  stepM: number;
}

const CURVE_COORDINATES = ['hip_flexion', 'hip_adduction', 'hip_rotation', 'knee_angle', 'ankle_angle'] as const;
const CURVE_LABELS: Record<(typeof CURVE_COORDINATES)[number], string> = {
  hip_flexion: 'Hip flexion',
  hip_adduction: 'Hip adduction',
  hip_rotation: 'Hip rotation',
  knee_angle: 'Knee flexion',
  ankle_angle: 'Ankle dorsiflexion',
};

export function analyseGait(kinematics: TrialKinematics): AnalysisResult {
  const events = detectGaitEvents(kinematics);
  const cycles = gaitCycles(events, kinematics.sampleRateHz);
  if (cycles.length === 0) {
    throw new AnalysisError(
      'No complete gait cycle found: record at least two steps of each foot, walking straight at a steady pace with both feet in view.',
    );
  }
  const { direction, overground } = events;
  const feet = { r: footPoints(kinematics, 'r'), l: footPoints(kinematics, 'l') };
  const heelAlong = { r: along(feet.r.heel, direction), l: along(feet.l.heel, direction) };
  const lateral: Horizontal = [-direction[1], direction[0]];
  const heelLateral = { r: along(feet.r.heel, lateral), l: along(feet.l.heel, lateral) };
  const pelvisAlong = along(kinematics.point('pelvis'), direction);
  const toeAlong = { r: along(feet.r.toe, direction), l: along(feet.l.toe, direction) };
  const t = kinematics.timesS;

  const figures: CycleFigures[] = cycles.map((cycle) => {
    const { side, start, end } = cycle;
    const o = other(side);
    const strideS = t[end] - t[start];
    // On a treadmill the belt carries the standing foot back at walking speed: the toe's speed
    // backwards over single support (the other foot off the belt) is the belt's, added to every
    // footprint's travel. Overground the footprints stay where they are.
    let beltSpeed = 0;
    if (!overground) {
      const toe = toeAlong[side];
      beltSpeed =
        (toe[cycle.oppositeToeOff] - toe[cycle.oppositeHeelStrike]) /
        (t[cycle.oppositeHeelStrike] - t[cycle.oppositeToeOff]);
    }
    // Distance from one footprint (heel at its strike) to the next one, on the floor.
    const footprint = (from: Side, fromFrame: number, to: Side, toFrame: number) =>
      heelAlong[to][toFrame] - heelAlong[from][fromFrame] + beltSpeed * (t[toFrame] - t[fromFrame]);
    const strideLengthM = footprint(side, start, side, end);
    return {
      strideLengthM,
      // The pelvis's travel over the cycle (plus the belt's): unlike the stride, it does not hinge on when exactly the heel struck.
      speedMPerS: (pelvisAlong[end] - pelvisAlong[start]) / strideS + beltSpeed,
      cadenceStepsPerMin: 120 / strideS,
      stanceS: t[cycle.toeOff] - t[start],
      swingS: t[end] - t[cycle.toeOff],
      doubleSupportPercent:
        ((t[cycle.oppositeToeOff] - t[start] + (t[cycle.toeOff] - t[cycle.oppositeHeelStrike])) / strideS) * 100,
      // Both feet are on the floor when the other foot strikes.
      stepWidthM: Math.abs(heelLateral[side][cycle.oppositeHeelStrike] - heelLateral[o][cycle.oppositeHeelStrike]),
      oppositeStepM: footprint(side, start, o, cycle.oppositeHeelStrike),
      stepM: footprint(o, cycle.oppositeHeelStrike, side, end),
    };
  });
  const all = (key: keyof CycleFigures) => figures.map((f) => f[key]);
  const stepsOf = (side: Side) => {
    // Each heel strike once, whichever cycle it ends.
    const byFrame = new Map<number, number>();
    cycles.forEach((cycle, i) => {
      if (cycle.side === side) byFrame.set(cycle.end, figures[i].stepM);
      else byFrame.set(cycle.oppositeHeelStrike, figures[i].oppositeStepM);
    });
    return [...byFrame.values()];
  };
  const symmetry = figures.map(
    (f, i) => (cycles[i].side === 'r' ? f.stepM / f.oppositeStepM : f.oppositeStepM / f.stepM) * 100,
  );
  const heightM = kinematics.heightM;

  const start = cycles[0].start;
  const end = Math.max(...cycles.map((c) => c.end));
  const count = (side: Side) => cycles.filter((c) => c.side === side).length;
  const metrics = {
    gait_speed: metric(SPEC.gait_speed, all('speedMPerS'), 'gait cycles', 3),
    stride_length: metric(strideLengthSpec(heightM), all('strideLengthM'), 'gait cycles', 3),
    step_length_r: metric(SPEC.step_length_r, stepsOf('r'), 'right steps', 3),
    step_length_l: metric(SPEC.step_length_l, stepsOf('l'), 'left steps', 3),
    step_width: metric(SPEC.step_width, all('stepWidthM'), 'gait cycles', 3),
    cadence: metric(SPEC.cadence, all('cadenceStepsPerMin'), 'gait cycles', 1),
    stance_time: metric(SPEC.stance_time, all('stanceS'), 'gait cycles', 2),
    swing_time: metric(SPEC.swing_time, all('swingS'), 'gait cycles', 2),
    double_support: metric(SPEC.double_support, all('doubleSupportPercent'), 'gait cycles', 1),
    step_length_symmetry: metric(SPEC.step_length_symmetry, symmetry, 'gait cycles', 1),
  };

  const curves = SIDES.flatMap((side) =>
    CURVE_COORDINATES.filter((name) => kinematics.hasCoordinate(`${name}_${side}`)).map((name) => {
      const signal = kinematics.coordinate(`${name}_${side}`);
      const sideCycles = cycles.filter((c) => c.side === side);
      const { mean, std } = meanStdCurve(sideCycles.map((c) => resample(signal, c.start, c.end)));
      return {
        quantity: `${name}_${side}`,
        label: `${CURVE_LABELS[name]} (${SIDE_NAME[side]})`,
        side: SIDE_NAME[side],
        percent: Array.from({ length: 101 }, (_, k) => k),
        mean: mean.map((v) => round(v, 2)),
        std: std.map((v) => round(v, 2)),
        count: sideCycles.length,
      };
    }),
  ).filter((curve) => curve.count > 0);

  const speed = meanStd(all('speedMPerS')).mean;
  return {
    analysis: 'gait',
    metrics,
    info_text:
      `${overground ? 'Overground' : 'Treadmill'} walking at ${speed.toFixed(2)} m/s: ${cycles.length} complete gait cycle${cycles.length === 1 ? '' : 's'} ` +
      `(${count('r')} right, ${count('l')} left) from ${t[start].toFixed(2)} s to ${t[end].toFixed(2)} s. ` +
      'Heel strike and toe off from the heel and toe positions relative to the pelvis (Zeni et al. 2008); figures are the mean ± SD over all complete cycles.',
    ...timeSeries(kinematics, [
      ...SAGITTAL_LEG_ANGLES,
      'pelvis_tilt',
      'pelvis_list',
      'pelvis_rotation',
      'lumbar_extension',
    ]),
    y_axis: ['knee_angle_r', 'knee_angle_l'],
    indices: { start, end },
    curves,
  };
}

const SPEC = {
  gait_speed: {
    label: 'Gait speed',
    unit: 'm/s',
    description:
      'Distance the pelvis travels over each gait cycle (plus the belt travel on a treadmill) divided by the cycle time.',
    // OpenCap's gait dashboard (Stanford NMBL, opencap-analysis gait_analysis/function/handler.py): gait speed
    // "larger than 1.12 m/s is considered good" (threshold 67/60 m/s, i.e. 67 m/min). Healthy adults under 80
    // walk at about 1.1–1.4 m/s at their comfortable speed (Bohannon & Andrews 2011, "Normal walking speed: a
    // descriptive meta-analysis", Physiotherapy 97(3):182–189); below 1.0 m/s marks limited community
    // walking (Fritz & Lusardi 2009, "White paper: walking speed: the sixth vital sign", J Geriatr Phys Ther 32(2):2–5).
    range: {
      min: 1.12,
      source:
        "above 1.12 m/s (OpenCap's gait dashboard; healthy adults walk at about 1.1–1.4 m/s, Bohannon & Andrews 2011).",
      classes: ['Slow', 'Normal', 'Normal'],
    },
  },
  step_length_r: {
    label: 'Step length (right)',
    unit: 'm',
    description: 'Distance along the walking direction from the left heel strike to the next right heel strike.',
  },
  step_length_l: {
    label: 'Step length (left)',
    unit: 'm',
    description: 'Distance along the walking direction from the right heel strike to the next left heel strike.',
  },
  step_width: {
    label: 'Step width',
    unit: 'm',
    description: 'Side-to-side distance between the heels when the opposite foot strikes.',
  },
  cadence: {
    label: 'Cadence',
    unit: 'steps/min',
    description: 'Steps per minute: two steps per stride time.',
    // Tudor-Locke et al. (2018), "Walking cadence (steps/min) and intensity in 21–40 year olds: CADENCE-adults",
    // Int J Behav Nutr Phys Act 16:8 (2019): 100 steps/min is the threshold of moderate-intensity walking;
    // OpenCap's gait dashboard reads cadence against the same 100 steps/min.
    range: {
      min: 100,
      source: 'at least 100 steps/min, the cadence of moderate-intensity walking (Tudor-Locke et al. 2019).',
      classes: ['Slow', 'Normal', 'Normal'],
    },
  },
  stance_time: {
    label: 'Stance time',
    unit: 's',
    description:
      'Heel strike to toe off of the same foot (about 60 % of the cycle in healthy walking, Perry & Burnfield 2010).',
  },
  swing_time: {
    label: 'Swing time',
    unit: 's',
    description: 'Toe off to the next heel strike of the same foot (about 40 % of the cycle, Perry & Burnfield 2010).',
  },
  double_support: {
    label: 'Double support',
    unit: '%',
    description: 'Share of the gait cycle with both feet on the floor (the two periods after each heel strike).',
    // Perry & Burnfield (2010), "Gait Analysis: Normal and Pathological Function", 2nd ed.: each double-limb
    // support period is about 10 % of the cycle at comfortable speed (20 % in all); it grows as walking slows and
    // balance worsens; 35 % flags a markedly prolonged double support (OpenCap's gait dashboard's threshold).
    range: {
      max: 35,
      source: 'below 35 % of the cycle (about 20 % in healthy walking, Perry & Burnfield 2010).',
      classes: ['Normal', 'Normal', 'Prolonged'],
    },
  },
  step_length_symmetry: {
    label: 'Step length symmetry',
    unit: '%',
    description: 'Right step length divided by left step length, per cycle.',
    // Patterson et al. (2010), "Evaluation of gait symmetry after stroke: a comparison of current methods and
    // recommendations for standardization", Gait & Posture 31(2):241–246: healthy step-length ratios stay within
    // about ±8 %; 90–110 % is the clinic's band (and OpenCap's gait dashboard's).
    range: {
      min: 90,
      max: 110,
      source: '90–110 % (healthy step-length ratios stay within about ±8 %, Patterson et al. 2010).',
      classes: ['Left longer', 'Symmetric', 'Right longer'],
    },
  },
} satisfies Record<string, MetricSpec>;

/** Stride length; with the subject's height, read against 0.45 × height. */
function strideLengthSpec(heightM: number | undefined): MetricSpec {
  const spec: MetricSpec = {
    label: 'Stride length',
    unit: 'm',
    description: 'Distance the heel travels from one heel strike to the next of the same foot.',
  };
  if (heightM === undefined) return spec;
  // Comfortable stride length of healthy adults is about 0.8 × height (Perry & Burnfield 2010: 1.41 m mean
  // stride; Hof 1996 scales stride with leg length); below 0.45 × height is a markedly shortened stride
  // (OpenCap's gait dashboard: "larger than 0.45 times the subject's height is considered good").
  return {
    ...spec,
    range: {
      min: 0.45 * heightM,
      source: `above 0.45 × height (${(0.45 * heightM).toFixed(2)} m for ${heightM.toFixed(2)} m; healthy strides are about 0.8 × height, Perry & Burnfield 2010).`,
      classes: ['Short', 'Normal', 'Normal'],
    },
  };
}
