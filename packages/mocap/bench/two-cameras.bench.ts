/**
 * Two cameras (issue 25): the Pose2Sim demo's static trial (as the neutral) and balancing trial
 * through the session chain `kinetrace process` runs, on all four cameras and on each pair the issue
 * names, from one pose detection per video. Per setup: the balancing trial's segment-length SD
 * (median and worst of 12 segments; goal ≤ 20 / ≤ 40 mm on pairs, ≤ 15 mm on four cameras; and the
 * worst off the feet, whose lengths two views alone are held to), the
 * scaling result (or its error) with the keypoints left out and those too far from the model standing
 * to place markers on, and the hip, knee and ankle flexion
 * angles' RMS difference to the four cameras' (goal ≤ 5°), with and without the mean offset; then
 * where that difference arises: the pair's keypoints through the four cameras' scaled model (what
 * two views change in triangulation, synchronisation and filtering) and the four cameras' keypoints
 * through the pair's model (what they change in the neutral and its scaling), and the
 * synchronisation lag the pair found (the demo's cameras are synchronised in hardware: 0). Then the
 * same chain on 2D keypoints every view agrees on (the four cameras' reprojected into each camera:
 * what two cameras add themselves), and with each view's median offset from them, or the rest of
 * the detector's placement, put back (what the detector adds).
 * BENCH_POSE_MODEL detects with another model than the default.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEMO_FILES } from '../test/model-fitting/pose2sim-demo-chain.ts';
import type { CoordinateComparison } from '../src/ik/compare-motions.ts';
import {
  angleErrorSources,
  anglesAgainst,
  CAMERAS,
  detectDemo,
  fourCameraKeypoints,
  PAIRS,
  reprojectedDetections,
  runSetup,
  segmentFigures,
  type SetupRun,
} from '../test/pipeline/two-camera-pairs.ts';
import { benchPoseModel } from '../test/pose/detection-cache.ts';
import { referencePath, sharedDataDir } from '../test/reference-data.ts';

const missing = [DEMO_FILES.staticVideos, DEMO_FILES.balancingVideos, DEMO_FILES.calibration].filter(
  (path) => !existsSync(referencePath(path)),
);
if (missing.length > 0) {
  console.log(`two cameras: skipped, reference data missing: ${missing.join(', ')} under ${sharedDataDir}`);
} else {
  const root = mkdtempSync(join(tmpdir(), 'kinetrace-two-cameras-bench-'));
  try {
    const detections = await detectDemo(benchPoseModel());
    const degrees = (comparisons: CoordinateComparison[]) =>
      comparisons
        .map(
          (c) =>
            `${c.coordinate.replace(/_(flexion|angle)/, '')} ${c.rmsDifferenceDeg.toFixed(1)} (${c.rmsDifferenceWithoutOffsetDeg.toFixed(1)})`,
        )
        .join(', ');
    const total = (comparisons: CoordinateComparison[]) =>
      `sum ${comparisons.reduce((sum, c) => sum + c.rmsDifferenceDeg, 0).toFixed(1)}°, ${comparisons.filter((c) => c.rmsDifferenceDeg <= 5).length} of ${comparisons.length} within 5°`;
    const diagnosis = (run: SetupRun, four: SetupRun) => {
      const sources = angleErrorSources(run, four);
      const lags = run.balancing.cameras
        .filter((camera) => !camera.sync.isReference)
        .map(
          (camera) =>
            `${camera.name} ${camera.sync.lagFrames.toFixed(1)} frames${camera.sync.refined ? '' : ' (start times kept)'}`,
        );
      return (
        `\n${''.padEnd(24)}   from the pair's keypoints (four cameras' model): ${degrees(sources.keypoints)}` +
        `\n${''.padEnd(24)}   from the pair's model (four cameras' keypoints): ${degrees(sources.model)}` +
        `\n${''.padEnd(24)}   sync lag: ${lags.join(', ')}`
      );
    };
    const row = (name: string, run: SetupRun | Error, four?: SetupRun) => {
      if (run instanceof Error) return `${name.padEnd(24)} failed: ${run.message}`;
      const segments = segmentFigures(run.balancing);
      const scaling = run.neutral.modelFit.scaling!;
      const angles = four ? degrees(anglesAgainst(run, four)) + diagnosis(run, four) : 'reference';
      return (
        `${name.padEnd(24)} ${segments.medianSdMm.toFixed(1).padStart(5)} ${`${segments.worst.sdMm.toFixed(1)} ${segments.worst.name}`.padEnd(16)} ${`${segments.worstOffFeet.sdMm.toFixed(1)} ${segments.worstOffFeet.name}`.padEnd(16)} ` +
        `${run.balancing.quality.rating.padEnd(5)} scaled${scaling.keypointsNotSeen.length > 0 ? ` without ${scaling.keypointsNotSeen.length} keypoints (${scaling.keypointsNotSeen.join(', ')})` : ''}` +
        `${scaling.markersNotPlaced.length > 0 ? `, markers at the model's places: ${scaling.markersNotPlaced.join(', ')}` : ''}\n` +
        `${''.padEnd(24)} angles vs four cameras, RMS (without offset), deg: ${angles}`
      );
    };
    const four = await runSetup(detections, CAMERAS, join(root, 'four'));
    console.log(
      `two cameras, Pose2Sim demo balancing trial (${detections.poseModel}): cameras | segment SD median, worst, worst off the feet (mm; goal ≤ 20, ≤ 40 on pairs, ≤ 15 on four) | quality | scaling`,
    );
    console.log(row(CAMERAS.join('+'), four));
    const pairAngles: CoordinateComparison[] = [];
    for (const pair of PAIRS) {
      const run = await runSetup(detections, pair, join(root, pair.join('-'))).catch((error: unknown) =>
        error instanceof Error ? error : new Error(String(error)),
      );
      console.log(row(pair.join('+'), run, four));
      if (!(run instanceof Error)) pairAngles.push(...anglesAgainst(run, four));
    }
    console.log(`${''.padEnd(24)} the pairs' ${pairAngles.length} angles: ${total(pairAngles)}`);

    // The same chain on 2D keypoints every view agrees on, then with the detector's own placement
    // of each keypoint put back in two parts: what two cameras add, and what the detector adds.
    console.log(
      "two cameras on four cameras' keypoints reprojected into each camera (where it detected them), with the detector's placement kept: angles vs four cameras on the same keypoints, RMS deg",
    );
    const fourKeypoints = await fourCameraKeypoints(detections);
    for (const keep of ['none', 'median offset', 'without median offset'] as const) {
      const input = reprojectedDetections(detections, fourKeypoints, keep);
      const dir = join(root, keep.replaceAll(' ', '-'));
      const reference = await runSetup(input, CAMERAS, join(dir, 'four'));
      const angles: CoordinateComparison[] = [];
      for (const pair of PAIRS) {
        const pairAngles = anglesAgainst(await runSetup(input, pair, join(dir, pair.join('-'))), reference);
        console.log(`${keep.padEnd(22)} ${pair.join('+').padEnd(12)} ${degrees(pairAngles)}`);
        angles.push(...pairAngles);
      }
      console.log(`${keep.padEnd(22)} ${''.padEnd(12)} ${total(angles)}`);
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
