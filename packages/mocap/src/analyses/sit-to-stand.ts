import type { AnalysisResult } from '@kinetrace/contracts';
import { timeSeries } from './datasets.ts';
import { metric, type MetricSpec } from './metrics.ts';
import { peakPerRepetition, pelvisMovement } from './repetitions.ts';
import type { TrialKinematics } from './trial-kinematics.ts';

/** Standing up from a chair raises the pelvis by about 0.3–0.4 m in adults; less than this is not a rise, m. */
const MIN_RISE_M = 0.15;

const SPEC = {
  repetitions: {
    label: 'Repetitions',
    unit: 'count',
    description: 'Rises from sitting to standing, counted from the pelvis going up by at least 15 cm.',
  },
  time_per_repetition: {
    label: 'Time per repetition',
    unit: 's',
    description:
      'From leaving the seat to leaving it again (the last: to sitting back down, or to the end of the recording).',
    // Buatois et al. (2008), "Five times sit to stand test is a predictor of recurrent falls in healthy
    // community-living subjects aged 65 and older", J Am Geriatr Soc 56(8):1575–1577: more than 15 s for
    // five repetitions (3 s each) predicts recurrent falls.
    range: {
      max: 3,
      source:
        'up to 3 s per repetition (more than 15 s for five repetitions predicts recurrent falls, Buatois et al. 2008).',
      classes: ['Normal', 'Normal', 'Slow'],
    },
  },
  peak_trunk_flexion: {
    label: 'Peak trunk flexion',
    unit: 'deg',
    description: 'Largest forward lean of the trunk from vertical in each repetition.',
  },
} satisfies Record<string, MetricSpec>;

export function analyseSitToStand(kinematics: TrialKinematics): AnalysisResult {
  const { pelvisHeight, reps, start, end, trunk } = pelvisMovement(
    kinematics,
    { minExcursionM: MIN_RISE_M, minSeparationS: 1, direction: 'up' },
    'No rise from sitting found: the pelvis never went up by 15 cm or more. Record the subject starting seated, standing up fully, with the whole body in view.',
  );
  const t = kinematics.timesS;
  const metrics = {
    repetitions: metric(SPEC.repetitions, [reps.length], 'rises', 0),
    // Seat-off to the next seat-off (a whole sit-stand-sit cycle, as the five-times test times it); the last to sitting back down.
    time_per_repetition: metric(
      SPEC.time_per_repetition,
      reps.map((rep, i) => t[i + 1 < reps.length ? reps[i + 1].start : rep.end] - t[rep.start]),
      'repetitions',
      2,
    ),
    peak_trunk_flexion: metric(SPEC.peak_trunk_flexion, peakPerRepetition(trunk.forward, reps), 'repetitions', 1),
  };
  return {
    analysis: 'sit-to-stand',
    metrics,
    info_text: `${reps.length} rise${reps.length === 1 ? '' : 's'} from sitting to standing from ${t[start].toFixed(2)} s to ${t[end].toFixed(2)} s (${(t[end] - t[start]).toFixed(1)} s in all), counted from the pelvis height; figures are the mean ± SD over the repetitions.`,
    ...timeSeries(kinematics, ['hip_flexion_r', 'hip_flexion_l', 'knee_angle_r', 'knee_angle_l', 'lumbar_extension'], {
      pelvis_height: pelvisHeight,
      trunk_flexion: trunk.forward,
    }),
    y_axis: ['pelvis_height', 'trunk_flexion'],
    indices: { start, end },
    curves: [],
  };
}
