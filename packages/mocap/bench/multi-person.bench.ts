/**
 * The right person (issue 25): Pose2Sim's Demo_MultiPerson (a man balancing on the beam, a woman
 * beside it, a third person in the back) reconstructed on its four cameras, on the two pairs
 * where telling people apart is hardest (the issue's) and on the two front-back pairs, from one pose
 * detection per video. Per setup: the 12
 * segments' length SD (median and worst; goal ≤ 20 / ≤ 40 mm), the largest frame-to-frame change
 * of a segment's length (goal ≤ 0.15 m), and the median reprojection error per camera (goal: within
 * the single-person demo's, at most 15.9 px: another person in one camera is hundreds of pixels off).
 * BENCH_POSE_MODEL detects with another model than the default.
 */
import { existsSync } from 'node:fs';
import {
  describeMultiPerson,
  detectMultiPersonDemo,
  MULTI_PERSON_CAMERAS,
  MULTI_PERSON_FILES,
  MULTI_PERSON_PAIRS,
  reconstructMultiPerson,
  SINGLE_PERSON_WORST_CAMERA_PX,
} from '../test/pipeline/multi-person-demo.ts';
import { benchPoseModel } from '../test/pose/detection-cache.ts';
import { referencePath, sharedDataDir } from '../test/reference-data.ts';

/** cam01+cam03 and cam02+cam04: two phones facing each other across the subject. */
const FRONT_BACK_PAIRS = [
  [0, 2],
  [1, 3],
];

const missing = MULTI_PERSON_FILES.filter((path) => !existsSync(referencePath(path)));
if (missing.length > 0) {
  console.log(`multi-person: skipped, reference data missing: ${missing.join(', ')} under ${sharedDataDir}`);
} else {
  const poseModel = benchPoseModel();
  const demo = await detectMultiPersonDemo(poseModel);
  console.log(
    `multi-person demo, the man on the beam (${poseModel}; goals: segment SD median ≤ 20 mm, worst ≤ 40 mm, no jump over 150 mm, ` +
      `each camera's reprojection within the single-person demo's ≤ ${SINGLE_PERSON_WORST_CAMERA_PX} px)`,
  );
  for (const set of [[0, 1, 2, 3], ...MULTI_PERSON_PAIRS, ...FRONT_BACK_PAIRS])
    console.log(
      describeMultiPerson(set.map((c) => MULTI_PERSON_CAMERAS[c]).join('+'), reconstructMultiPerson(demo, set)),
    );
}
