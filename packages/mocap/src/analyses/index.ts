import type { AnalysisKind, AnalysisResult } from '@kinetrace/contracts';
import type { AnalysisInput } from './analysis-input.ts';
import { analyseDropJump } from './drop-jump.ts';
import { analyseGait } from './gait.ts';
import { analyseSitToStand } from './sit-to-stand.ts';
import { analyseSquat } from './squat.ts';
import { TrialKinematics } from './trial-kinematics.ts';

/**
 * Analyses of a processed trial (issue 12; spec §3 analysis result): pure functions of the scaled
 * model and its motion. Body positions come from forward kinematics of the model, so they work with
 * OpenCap's models and Kinetrace's default keypoint model alike. A trial that cannot be analysed
 * throws an AnalysisError whose message says what to record instead.
 */
export { AnalysisError } from './analysis-error.ts';
export { type AnalysisInput, loadAnalysisInput } from './analysis-input.ts';
export { analysisTitles } from './titles.ts';

const ANALYSES: Record<AnalysisKind, (kinematics: TrialKinematics) => AnalysisResult> = {
  gait: analyseGait,
  squat: analyseSquat,
  'sit-to-stand': analyseSitToStand,
  'drop-jump': analyseDropJump,
};

export function analyseTrial(kind: AnalysisKind, input: AnalysisInput): AnalysisResult {
  return ANALYSES[kind](new TrialKinematics(input));
}
