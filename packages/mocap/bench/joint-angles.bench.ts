/**
 * Joint angles of the Pose2Sim demo balancing trial beside Pose2Sim's own OpenSim IK (issue 10):
 * the whole chain (kinetrace process on the static and the balancing trial, scale, ik) and, to tell
 * IK and scaling apart from triangulation, each model on Pose2Sim's own .trc files; for the default
 * model (LaiUhlrich2022) and our own kinematic model, side by side at the end (issue 22). Prints per
 * flexion angle the largest frame-to-frame jump, the offset between the two models' zeros and the
 * RMS difference with and without it, and the static-pose marker error of scaling.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  degreeRow,
  DEMO_FILES,
  formatComparison,
  formatSideBySide,
  pose2SimSpread,
  processDemo,
  runOnTheirKeypoints,
  scaleAndSolve,
} from '../test/model-fitting/pose2sim-demo-chain.ts';
import { DEFAULT_MODEL_NAME } from '../src/default-model/default-model.ts';
import { DEFAULT_MODEL } from '../src/default-model/named-models.ts';
import { referencePath, sharedDataDir } from '../test/reference-data.ts';

/** The default model beside our own kinematic model, which it replaced as the default. */
const BENCH_MODELS = [DEFAULT_MODEL, DEFAULT_MODEL_NAME] as const;

const missing = Object.values(DEMO_FILES).filter((path) => !existsSync(referencePath(path)));
if (missing.length > 0) {
  console.log(`joint angles: skipped, reference data missing: ${missing.join(', ')} under ${sharedDataDir}`);
} else {
  console.log(
    [
      'joint angles, Pose2Sim’s IK through its augmenter’s markers vs through its body25b markers, same keypoints (RMS difference without offset, deg):',
      ...pose2SimSpread().map((c) => degreeRow(c.coordinate, [c.rmsDifferenceWithoutOffsetDeg])),
    ].join('\n'),
  );
  for (const model of BENCH_MODELS)
    console.log(formatComparison(`joint angles, ${model} on Pose2Sim’s .trc`, runOnTheirKeypoints(model)));
  const root = mkdtempSync(join(tmpdir(), 'kinetrace-joint-angles-bench-'));
  try {
    const { staticTrc, balancingTrc } = await processDemo(root);
    const chains = [];
    for (const model of BENCH_MODELS) chains.push(await scaleAndSolve(staticTrc, balancingTrc, root, model));
    chains.forEach((chain, i) =>
      console.log(formatComparison(`joint angles, kinetrace process → scale → ik, ${BENCH_MODELS[i]}`, chain)),
    );
    console.log(formatSideBySide(BENCH_MODELS, chains));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
