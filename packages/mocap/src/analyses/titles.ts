import type { AnalysisKind } from '@kinetrace/contracts';

/** Spec §3 analysis function fields: what the analysis dialog and the dashboards show for each kind. */
export const analysisTitles: Record<AnalysisKind, { title: string; description: string; info: string }> = {
  gait: {
    title: 'Gait analysis',
    description:
      'Gait speed, stride and step length, cadence, step width, stance and swing time, double support and step-length symmetry over every complete gait cycle, with joint-angle curves per cycle.',
    info: 'For walking trials, overground or on a treadmill, with at least two steps of each foot. Heel strike and toe off come from the heel and toe positions relative to the pelvis (Zeni et al. 2008). Figures are the mean ± SD over all complete cycles and are read against clinical reference ranges.',
  },
  squat: {
    title: 'Squat analysis',
    description:
      'Repetitions, squat depth, peak hip, knee and ankle flexion, and trunk flexion and lean, for double- or single-leg squats.',
    info: 'For trials starting from standing with one or more squats. Each squat is counted from the pelvis going down and back up by at least 8 cm; figures are the mean ± SD over the repetitions.',
  },
  'sit-to-stand': {
    title: 'Sit-to-stand analysis',
    description: 'Rises from a chair, time per repetition and peak trunk flexion.',
    info: 'For trials starting seated, such as the five-times sit-to-stand test. Each rise is counted from the pelvis going up by at least 15 cm; more than 3 s per repetition is read as slow (Buatois et al. 2008).',
  },
  'drop-jump': {
    title: 'Drop jump analysis',
    description:
      'Ground contacts, jump height from the centre of mass, contact and flight time, and peak knee and hip flexion.',
    info: "For drop jumps from a box (or jumps from the floor), with the feet in view from standing to the landing. Jump height is how far the top of the flight of the body's centre of mass is above its height when standing upright; record a moment of standing on the floor.",
  },
};
