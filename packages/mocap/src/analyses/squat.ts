import type { AnalysisResult } from '@kinetrace/contracts';
import { SAGITTAL_LEG_ANGLES, timeSeries } from './datasets.ts';
import { metric, type MetricSpec } from './metrics.ts';
import { peakPerRepetition, pelvisMovement } from './repetitions.ts';
import { maxOf, meanStd } from './signal.ts';
import { heightOf, type TrialKinematics } from './trial-kinematics.ts';

/** A squat lowers the pelvis by at least this much, m (a quarter squat of an adult is about 0.15 m). */
const MIN_SQUAT_DEPTH_M = 0.08;
/** One foot held this much higher than the other through the repetitions makes a single-leg squat, m. */
const SINGLE_LEG_FOOT_LIFT_M = 0.1;

const SPEC = {
  repetitions: {
    label: 'Repetitions',
    unit: 'count',
    description: 'Squats counted from the pelvis going down and back up by at least 8 cm.',
  },
  squat_depth: {
    label: 'Squat depth',
    unit: 'm',
    description: 'How far the pelvis drops from standing to the bottom of each squat.',
  },
  peak_hip_flexion: {
    label: 'Peak hip flexion',
    unit: 'deg',
    description: 'Largest hip flexion of each squat (mean of both sides; the standing leg in a single-leg squat).',
  },
  peak_knee_flexion: {
    label: 'Peak knee flexion',
    unit: 'deg',
    description: 'Largest knee flexion of each squat (mean of both sides; the standing leg in a single-leg squat).',
  },
  peak_ankle_dorsiflexion: {
    label: 'Peak ankle dorsiflexion',
    unit: 'deg',
    description:
      'Largest ankle dorsiflexion of each squat (mean of both sides; the standing leg in a single-leg squat).',
  },
  trunk_flexion: {
    label: 'Peak trunk flexion',
    unit: 'deg',
    description: 'Largest forward lean of the trunk from vertical in each squat.',
  },
  trunk_lean: {
    label: 'Peak trunk lean',
    unit: 'deg',
    description: 'Largest sideways lean of the trunk from vertical in each squat (either side).',
  },
} satisfies Record<string, MetricSpec>;

export function analyseSquat(kinematics: TrialKinematics): AnalysisResult {
  const { pelvisHeight, reps, start, end, trunk } = pelvisMovement(
    kinematics,
    { minExcursionM: MIN_SQUAT_DEPTH_M, minSeparationS: 0.8, direction: 'down' },
    'No squat found: the pelvis never went down and back up by 8 cm or more. Record the squats from standing, with the whole body in view.',
  );
  const heelHeight = { r: heightOf(kinematics.point('calcn_r')), l: heightOf(kinematics.point('calcn_l')) };
  // Right foot higher than the left (positive) or lower, averaged over the squats.
  const lift = meanStd(reps.map((rep) => heelHeight.r[rep.extreme] - heelHeight.l[rep.extreme])).mean;
  const singleLeg = Math.abs(lift) > SINGLE_LEG_FOOT_LIFT_M;
  const sides = singleLeg ? [lift > 0 ? 'l' : 'r'] : ['r', 'l'];
  const peak = (coordinate: string) => {
    const signals = sides.map((side) => kinematics.coordinate(`${coordinate}_${side}`));
    return reps.map((rep) => meanStd(signals.map((signal) => maxOf(signal, rep.start, rep.end + 1))).mean);
  };
  const leanAbs = trunk.sideways.map(Math.abs);
  const metrics = {
    repetitions: metric(SPEC.repetitions, [reps.length], 'squats', 0),
    squat_depth: metric(
      SPEC.squat_depth,
      reps.map((rep) => rep.excursionM),
      'squats',
      3,
    ),
    peak_hip_flexion: metric(SPEC.peak_hip_flexion, peak('hip_flexion'), 'squats', 1),
    peak_knee_flexion: metric(SPEC.peak_knee_flexion, peak('knee_angle'), 'squats', 1),
    peak_ankle_dorsiflexion: metric(SPEC.peak_ankle_dorsiflexion, peak('ankle_angle'), 'squats', 1),
    trunk_flexion: metric(SPEC.trunk_flexion, peakPerRepetition(trunk.forward, reps), 'squats', 1),
    trunk_lean: metric(SPEC.trunk_lean, peakPerRepetition(leanAbs, reps), 'squats', 1),
  };
  const t = kinematics.timesS;
  const kind = singleLeg ? `Single-leg squat on the ${sides[0] === 'r' ? 'right' : 'left'} leg` : 'Double-leg squat';
  return {
    analysis: 'squat',
    metrics,
    info_text: `${kind}: ${reps.length} repetition${reps.length === 1 ? '' : 's'} from ${t[start].toFixed(2)} s to ${t[end].toFixed(2)} s, counted from the pelvis height; figures are the mean ± SD over the repetitions.`,
    ...timeSeries(kinematics, [...SAGITTAL_LEG_ANGLES, 'lumbar_extension'], {
      pelvis_height: pelvisHeight,
      trunk_flexion: trunk.forward,
      trunk_lean: trunk.sideways,
    }),
    y_axis: ['knee_angle_r', 'knee_angle_l', 'hip_flexion_r', 'hip_flexion_l'],
    indices: { start, end },
    curves: [],
  };
}
