/**
 * How steady the 3D keypoints are on the Pose2Sim demo balancing trial (4 cameras, 60 fps, 100
 * frames, its Qualisys calibration), through the real chain (decode → pose → reconstruct), beside
 * the other tool's filtered result for the same videos (issue 10's table): segment-length SD over
 * 12 segments, right shank range, largest frame-to-frame ankle jump, median motion of the stance
 * (left) ankle, median distance of hips, knees and ankles to the other tool, reprojection error,
 * and what the robust steps did (views left out, sides swapped, spikes removed). Then
 * synchronisation with a known shift added to one camera's start time, on a 1 s cut, and a
 * synthetic bystander injected into two cameras. KINETRACE_BENCH_MODELS (comma-separated) compares
 * pose models; the default model alone by default.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readQualisysCalibration } from '../src/camera/formats/qualisys.ts';
import { readTrc, type MarkerTrajectories } from '../src/formats/trc.ts';
import { processTrial } from '../src/pipeline/process-trial.ts';
import { reconstructTrial } from '../src/pipeline/reconstruct-trial.ts';
import { DEFAULT_POSE_MODEL, type PoseModelName } from '../src/pose/pose-model.ts';
import type { Keypoints2D } from '../src/pose/types.ts';
import { frameMotion } from '../src/report/keypoint-motion.ts';
import { segmentLengths } from '../src/report/segment-lengths.ts';

const shared = fileURLToPath(new URL('../../../../shared/data/pose2sim_demo/', import.meta.url));
const demoDir = join(shared, 'Pose2Sim/Demo_SinglePerson');
const otherToolTrc = join(
  shared,
  'history_reference_outputs/a948c205cfe4ea5c22d6941929e8efaba591a59d/Pose2Sim/S00_Demo_Session/S00_P00_SingleParticipant/S00_P00_T01_BalancingTrial/pose-3d/S00_P00_T01_BalancingTrial_0-100_filt_butterworth.trc',
);
const cameraNames = ['cam01', 'cam02', 'cam03', 'cam04'];
const models = (process.env.KINETRACE_BENCH_MODELS?.split(',') ?? [DEFAULT_POSE_MODEL]) as PoseModelName[];

const mm = (m: number) => (1000 * m).toFixed(1);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1];

function figures(trajectories: MarkerTrajectories) {
  const names = trajectories.markerNames;
  const frames = trajectories.timesS.length;
  const segments = segmentLengths(trajectories.positionsM, names, frames);
  const sds = segments.map((segment) => segment.sdM).sort((a, b) => a - b);
  const shank = segments.find((segment) => segment.name === 'RShank')!;
  const motion = (name: string) => frameMotion(trajectories.positionsM, names.length, names.indexOf(name), frames)!;
  return {
    medianSdM: (sds[5] + sds[6]) / 2,
    worst: segments.reduce((worst, segment) => (segment.sdM > worst.sdM ? segment : worst)),
    shankRangeM: shank.maxM - shank.minM,
    rightAnkleJumpM: motion('RAnkle').largestJumpM,
    leftAnkleMedianM: motion('LAnkle').medianJumpM,
  };
}

function distancesToOtherToolMm(ours: MarkerTrajectories, theirs: MarkerTrajectories): string {
  return ['RHip', 'LHip', 'RKnee', 'LKnee', 'RAnkle', 'LAnkle']
    .map((name) => {
      const a = ours.markerNames.indexOf(name);
      const b = theirs.markerNames.indexOf(name);
      const distances: number[] = [];
      for (let frame = 0; frame < Math.min(ours.timesS.length, theirs.timesS.length); frame++) {
        const p = (frame * ours.markerNames.length + a) * 3;
        const q = (frame * theirs.markerNames.length + b) * 3;
        const d = Math.hypot(
          ours.positionsM[p] - theirs.positionsM[q],
          ours.positionsM[p + 1] - theirs.positionsM[q + 1],
          ours.positionsM[p + 2] - theirs.positionsM[q + 2],
        );
        if (!Number.isNaN(d)) distances.push(d);
      }
      return `${name} ${mm(median(distances))}`;
    })
    .join(', ');
}

async function main(): Promise<void> {
  if (!existsSync(join(demoDir, 'videos/cam01.mp4')) || !existsSync(otherToolTrc)) {
    console.log(`skipped: reference data missing (${shared})`);
    return;
  }
  const cameras = readQualisysCalibration(readFileSync(join(demoDir, 'calibration/Calib.qca.txt'), 'utf8'));
  const otherTool = readTrc(readFileSync(otherToolTrc, 'utf8'));
  const theirs = figures(otherTool);
  let keypoints2D: Keypoints2D[] = [];

  for (const poseModel of models) {
    const started = performance.now();
    const trial = await processTrial(
      {
        trialName: 'balancing',
        cameras,
        videos: cameraNames.map((cameraName) => ({ cameraName, path: join(demoDir, `videos/${cameraName}.mp4`) })),
      },
      { poseModel },
    );
    const seconds = (performance.now() - started) / 1000;
    if (poseModel === DEFAULT_POSE_MODEL || keypoints2D.length === 0) keypoints2D = trial.keypoints2D;
    const ours = figures(trial.keypoints);
    const report = trial.report;
    console.log(
      `${poseModel}: ${trial.cameraFrames} camera frames in ${seconds.toFixed(1)} s (${(trial.cameraFrames / seconds).toFixed(1)} camera frames/s)`,
    );
    console.log(`  measure on the balancing trial                    ours              other tool`);
    console.log(
      `  median segment-length SD (12 segments, mm)        ${mm(ours.medianSdM).padEnd(18)}${mm(theirs.medianSdM)}   (goal < 15)`,
    );
    console.log(
      `  worst segment's SD (mm)                           ${`${mm(ours.worst.sdM)} ${ours.worst.name}`.padEnd(18)}${mm(theirs.worst.sdM)} ${theirs.worst.name}   (goal < 30)`,
    );
    console.log(
      `  right shank length range (mm)                     ${mm(ours.shankRangeM).padEnd(18)}${mm(theirs.shankRangeM)}`,
    );
    console.log(
      `  largest frame-to-frame right ankle jump (mm)      ${mm(ours.rightAnkleJumpM).padEnd(18)}${mm(theirs.rightAnkleJumpM)}   (goal < 150)`,
    );
    console.log(
      `  median frame-to-frame left (stance) ankle (mm)    ${mm(ours.leftAnkleMedianM).padEnd(18)}${mm(theirs.leftAnkleMedianM)}`,
    );
    console.log(`  median distance to the other tool (mm): ${distancesToOtherToolMm(trial.keypoints, otherTool)}`);
    console.log(
      `  reprojection median ${report.reprojectionErrorPx?.medianPx.toFixed(1)} px (outlier threshold ${report.outlierThresholdPx.toFixed(1)} px); ` +
        `views left out per camera ${report.cameras.map((camera) => camera.detectionsLeftOut).join('/')}; sides swapped ${report.cameras.map((camera) => camera.sidesSwapped).join('/')}; ` +
        `spikes removed ${report.keypoints.reduce((sum, keypoint) => sum + keypoint.framesSpikeRemoved, 0)}; sync refined ${report.cameras.map((camera) => (camera.sync.isReference ? 'ref' : camera.sync.refined)).join('/')}`,
    );
  }

  // Synchronisation: a known shift of one camera's start time must be undone.
  const reconstruct = (keypoints: readonly Keypoints2D[], firstFrameTimesS?: number[]) =>
    reconstructTrial(cameras, keypoints, { trialName: 'balancing', firstFrameTimesS, requireSync: false });
  const baseline = reconstruct(keypoints2D).sync.offsetsS;
  for (const camera of [1, 2]) {
    const rows: string[] = [];
    for (const shiftFrames of [1, -1, 10, -10, 30, -30]) {
      const first = [0, 0, 0, 0];
      first[camera] = shiftFrames / 60;
      const result = reconstruct(keypoints2D, first);
      const alignment =
        (result.sync.offsetsS[camera] - result.sync.offsetsS[0] - (baseline[camera] - baseline[0])) * 60;
      const sync = result.sync.cameras[camera];
      rows.push(
        `${shiftFrames > 0 ? '+' : ''}${shiftFrames}: ${alignment.toFixed(2)}${sync.refined ? '' : ' (not refined)'}`,
      );
    }
    console.log(
      `sync, ${cameraNames[camera]}'s start time shifted (frames): alignment off by ${rows.join(', ')} frames (goal within ±0.5)`,
    );
  }
  const cut = keypoints2D.map((k) => {
    const stride = k.keypointNames.length * 3;
    return {
      ...k,
      frameCount: 60,
      timestampsS: k.timestampsS.slice(0, 60),
      data: k.data.slice(0, 60 * stride),
      personFound: k.personFound.slice(0, 60),
    };
  });
  const cutSync = reconstruct(cut).sync.cameras;
  console.log(
    `sync on a 1 s cut: ${cutSync.map((c, i) => `${cameraNames[i]} ${c.signal === 'reference' ? 'reference' : c.refined ? `lag ${c.lagFrames.toFixed(2)} frames, ${c.reprojectionErrorPx?.toFixed(1)} px vs ${c.startTimesReprojectionErrorPx?.toFixed(1)} px at the start times` : `start times kept (confidence ${c.confidence.toFixed(2)})`}`).join('; ')}`,
  );

  // A bystander (the subject's detections moved a third of the image sideways) in cam02 and cam03,
  // followed by their trackers for frames 30-69.
  const clean = reconstruct(keypoints2D);
  const withBystander = keypoints2D.map((k, c) => {
    if (c !== 1 && c !== 2) return k;
    const beside = new Float32Array(k.data);
    for (let i = 0; i < beside.length; i += 3) beside[i] += k.imageSize.width / 3;
    const stride = k.keypointNames.length * 3;
    const data = new Float32Array(k.data);
    const other = new Float32Array(beside);
    data.set(beside.subarray(30 * stride, 70 * stride), 30 * stride);
    other.set(k.data.subarray(30 * stride, 70 * stride), 30 * stride);
    return { ...k, data, otherPeople: [other] };
  });
  const started = performance.now();
  const bystander = reconstruct(withBystander);
  const names = clean.keypoints.markerNames;
  let worstM = 0;
  for (let i = 0; i < clean.keypoints.positionsM.length; i += 3) {
    const d = Math.hypot(
      clean.keypoints.positionsM[i] - bystander.keypoints.positionsM[i],
      clean.keypoints.positionsM[i + 1] - bystander.keypoints.positionsM[i + 1],
      clean.keypoints.positionsM[i + 2] - bystander.keypoints.positionsM[i + 2],
    );
    if (!Number.isNaN(d)) worstM = Math.max(worstM, d);
  }
  const withFigures = figures(bystander.keypoints);
  console.log(
    `bystander in cam02 and cam03: every keypoint within ${mm(worstM)} mm of the clean reconstruction (${names.length} keypoints x ${clean.keypoints.timesS.length} frames); ` +
      `segment SD median ${mm(withFigures.medianSdM)} mm, worst ${mm(withFigures.worst.sdM)} mm; frames reassigned ${bystander.report.cameras.map((camera) => camera.framesPersonReassigned).join('/')}; ` +
      `reconstruction ${((performance.now() - started) / 1000).toFixed(2)} s`,
  );
}

await main();
