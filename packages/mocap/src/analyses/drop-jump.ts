import type { AnalysisMetric, AnalysisResult } from '@kinetrace/contracts';
import { AnalysisError } from './analysis-error.ts';
import { SAGITTAL_LEG_ANGLES, timeSeries } from './datasets.ts';
import { metric, type MetricSpec } from './metrics.ts';
import { maxOf, meanStd, minOf, percentile } from './signal.ts';
import { heightOf, type TrialKinematics } from './trial-kinematics.ts';

/** Both toes (MTP joints) this much above the floor: surely airborne, m (IK toe heights wander by a few cm). */
const AIRBORNE_M = 0.08;
/** Within this of its level before take-off (after landing), the lower toe is on the floor, m. */
const ON_FLOOR_M = 0.01;
/** How long before take-off (after landing) the toe's floor level is read, s. */
const FLOOR_WINDOW_S = 0.3;
/** Shortest time off the floor taken as a flight, s (a 2 cm hop flies about 0.13 s). */
const MIN_FLIGHT_S = 0.1;
/** Longest flight taken as a jump, s (a 1 m jump flies 0.9 s); longer is a box. */
const MAX_FLIGHT_S = 1.2;

const SPEC = {
  contacts: {
    label: 'Ground contacts',
    unit: 'count',
    description: 'Landings on the floor: from the box and after each jump.',
  },
  jump_height: {
    label: 'Jump height',
    unit: 'm',
    description:
      "Height of the top of the flight of the body's centre of mass (mass-weighted centres of the model's segments) above its height when standing upright on the floor.",
  },
  contact_time: {
    label: 'Contact time',
    unit: 's',
    description: 'Landing to take-off: time on the floor between the drop and the jump.',
  },
  flight_time: { label: 'Flight time', unit: 's', description: 'Take-off to landing of each jump.' },
  peak_knee_flexion: {
    label: 'Peak knee flexion',
    unit: 'deg',
    description:
      'Largest knee flexion in the analysed window: from the landing off the box (or a second before the first take-off) to half a second after the last landing (mean of both sides).',
  },
  peak_hip_flexion: {
    label: 'Peak hip flexion',
    unit: 'deg',
    description:
      'Largest hip flexion in the analysed window: from the landing off the box (or a second before the first take-off) to half a second after the last landing (mean of both sides).',
  },
} satisfies Record<string, MetricSpec>;

/** A stretch of frames [start, end] with both feet off the floor. */
interface Airborne {
  start: number;
  end: number;
}

/**
 * Drop (vertical) jump: the subject steps off a box, lands, and jumps as high as possible
 * (a countermovement jump from the floor is read the same way, without the drop). Both feet are off
 * the floor when both toes are well above it (AIRBORNE_M over the trial's floor level), from the
 * last frame the lower toe was at its floor level (take-off) to the first one back (landing); jumps
 * are the flights that start from the floor.
 */
export function analyseDropJump(kinematics: TrialKinematics): AnalysisResult {
  const toes = { r: heightOf(kinematics.point('toes_r')), l: heightOf(kinematics.point('toes_l')) };
  const lowerToe = toes.r.map((h, f) => Math.min(h, toes.l[f]));
  const floor = percentile(lowerToe, 0.05);
  const n = kinematics.frameCount;
  const t = kinematics.timesS;
  const window = Math.round(FLOOR_WINDOW_S * kinematics.sampleRateHz);
  const air: Airborne[] = [];
  for (let f = 0; f < n; f++) {
    if (lowerToe[f] <= floor + AIRBORNE_M) continue;
    let start = f;
    while (f + 1 < n && lowerToe[f + 1] > floor + AIRBORNE_M) f++;
    let end = f;
    // Take-off and landing: back to where the lower toe was within 1 cm of its level on the floor just before (after).
    if (start > 0) {
      const level = minOf(lowerToe, Math.max(0, start - window), start);
      while (start > 1 && lowerToe[start - 1] > level + ON_FLOOR_M) start--;
    }
    if (end < n - 1) {
      const level = minOf(lowerToe, end + 1, Math.min(n, end + 1 + window));
      while (end < n - 2 && lowerToe[end + 1] > level + ON_FLOOR_M) end++;
    }
    if (t[Math.min(n - 1, end + 1)] - t[start] >= MIN_FLIGHT_S) air.push({ start, end });
  }
  // Landings: airborne stretches (flights, or the box the trial starts on) that end on the floor.
  const landings = air.filter((a) => a.end < n - 1);
  // Jumps: flights that take off from the floor and land on it, long enough to be a jump.
  const flightS = (a: Airborne) => t[a.end + 1] - t[a.start];
  const jumps = landings.filter((a) => a.start > 0 && flightS(a) <= MAX_FLIGHT_S);
  if (jumps.length === 0) {
    throw new AnalysisError(
      'No jump found: both feet never left the floor together. Record the whole drop jump, from standing on the box to standing after the landing, with the feet in view.',
    );
  }
  const com = heightOf(kinematics.centreOfMass());
  const standing = standingComHeight(kinematics, com, (f) => !air.some((a) => f >= a.start && f <= a.end));
  // Jump height: the top of the centre of mass's flight above where it is when standing upright
  // (the criterion of Aragón-Vargas 2000, "Evaluation of four vertical jump tests: methodology,
  // reliability, validity, and accuracy", Meas Phys Educ Exerc Sci 4(4):215–228), which does not
  // hinge on the exact take-off frame.
  const heights = jumps.map((jump) => maxOf(com, jump.start, jump.end + 1) - standing);
  const flights = jumps.map(flightS);
  // Contact of a drop jump: from a landing to the next take-off.
  const contacts = jumps.flatMap((jump) => {
    const previous = air.filter((a) => a.end < jump.start).at(-1);
    return previous ? [t[jump.start] - t[previous.end + 1]] : [];
  });
  // The analysed window: from the landing off the box (or a second before the first take-off) to half a second after the last landing.
  const fromBox = !jumps.includes(landings[0]);
  const start = fromBox ? landings[0].end : Math.max(0, jumps[0].start - Math.round(kinematics.sampleRateHz));
  const last = jumps[jumps.length - 1];
  const end = Math.min(n - 1, last.end + Math.round(0.5 * kinematics.sampleRateHz));
  const peak = (coordinate: string) =>
    meanStd(['r', 'l'].map((side) => maxOf(kinematics.coordinate(`${coordinate}_${side}`), start, end + 1))).mean;
  const metrics: Record<string, AnalysisMetric> = {
    contacts: metric(SPEC.contacts, [landings.length], 'trials', 0),
    jump_height: metric(SPEC.jump_height, heights, 'jumps', 3),
    ...(contacts.length > 0 && { contact_time: metric(SPEC.contact_time, contacts, 'contacts', 3) }),
    flight_time: metric(SPEC.flight_time, flights, 'jumps', 3),
    peak_knee_flexion: metric(SPEC.peak_knee_flexion, [peak('knee_angle')], 'trials', 1),
    peak_hip_flexion: metric(SPEC.peak_hip_flexion, [peak('hip_flexion')], 'trials', 1),
  };
  return {
    analysis: 'drop-jump',
    metrics,
    info_text:
      `${fromBox ? 'Drop jump from a box' : 'Jump from the floor'}: ${landings.length} ground contact${landings.length === 1 ? '' : 's'}, ${jumps.length} jump${jumps.length === 1 ? '' : 's'} ` +
      `(highest ${Math.max(...heights).toFixed(2)} m) from ${t[start].toFixed(2)} s to ${t[end].toFixed(2)} s. Jump height from the centre of mass of the model's segments.`,
    ...timeSeries(kinematics, SAGITTAL_LEG_ANGLES, {
      com_height: com,
      toe_height_r: toes.r,
      toe_height_l: toes.l,
    }),
    y_axis: ['com_height', 'knee_angle_r', 'knee_angle_l'],
    indices: { start, end },
    curves: [],
  };
}

/** Standing upright: both knees straighter than this, deg. */
const UPRIGHT_KNEE_DEG = 15;
/** Standing still: the centre of mass moving up or down slower than this, m/s. */
const STILL_M_PER_S = 0.1;

/** Median centre-of-mass height over the frames standing upright and still on the floor. */
function standingComHeight(
  kinematics: TrialKinematics,
  com: Float64Array,
  onFloor: (frame: number) => boolean,
): number {
  const kneeR = kinematics.coordinate('knee_angle_r');
  const kneeL = kinematics.coordinate('knee_angle_l');
  const rate = kinematics.sampleRateHz;
  const standing: number[] = [];
  for (let f = 1; f + 1 < com.length; f++) {
    const speed = Math.abs(com[f + 1] - com[f - 1]) * (rate / 2);
    if (onFloor(f) && kneeR[f] < UPRIGHT_KNEE_DEG && kneeL[f] < UPRIGHT_KNEE_DEG && speed < STILL_M_PER_S)
      standing.push(com[f]);
  }
  if (standing.length < Math.round(0.1 * rate)) {
    throw new AnalysisError(
      'The subject never stands upright and still on the floor, so the jump height has no reference. Record a moment of standing on the floor before the jump or after the landing.',
    );
  }
  return percentile(standing, 0.5);
}
