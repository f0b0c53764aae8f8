/**
 * Joint angles of the Pose2Sim demo balancing trial beside Pose2Sim's own OpenSim IK (issue 10):
 * the whole chain (kinetrace process on the static and the balancing trial, scale, ik) and, to tell
 * IK and scaling apart from triangulation, our model on Pose2Sim's own .trc files. Prints per
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
  pose2SimSpread,
  runDemoChain,
  runOnTheirKeypoints,
} from '../test/model-fitting/pose2sim-demo-chain.ts';
import { referencePath, sharedDataDir } from '../test/reference-data.ts';

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
  console.log(formatComparison('joint angles, our model on Pose2Sim’s .trc', runOnTheirKeypoints()));
  const root = mkdtempSync(join(tmpdir(), 'kinetrace-joint-angles-bench-'));
  try {
    console.log(formatComparison('joint angles, kinetrace process → scale → ik', await runDemoChain(root)));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
