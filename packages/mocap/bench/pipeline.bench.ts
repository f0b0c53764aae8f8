/**
 * The `kinetrace process` pipeline on the real 4-camera demo (Pose2Sim, 60 fps, 1080×1920, 100 frames
 * a camera): camera frames per second of each stage, end-to-end seconds, the share of the stages
 * other than pose, and peak memory; then a longer trial made by looping the demo videos with ffmpeg
 * (KINETRACE_BENCH_LONG_S seconds, default 6) to show memory does not grow with the trial's length,
 * extrapolated to a 60 s, 4-camera 1080p trial; and the stages after pose on 60 s of keypoints.
 *
 * Goals (issue "Mocap engine, part 1"): ≥ 20 camera frames/s end to end on 2 cores with the default
 * model; stages other than pose under 20 % of the total; a 60 s 4-camera trial under 1.5 GB.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readQualisysCalibration } from '../src/camera/formats/qualisys.ts';
import { processTrial, type TrialResult } from '../src/pipeline/process-trial.ts';
import { reconstructTrial } from '../src/pipeline/reconstruct-trial.ts';
import { DEFAULT_POSE_MODEL } from '../src/pose/pose-model.ts';
import { decodeFrames } from '../src/video/decode.ts';
import { ffmpegPath } from '../src/video/binaries.ts';
import { POSE_INPUT_MAX_SIDE_PX } from '../src/pose/pose-model.ts';

const dataDir = fileURLToPath(
  new URL('../../../../shared/data/pose2sim_demo/Pose2Sim/Demo_SinglePerson', import.meta.url),
);
const cameraNames = ['cam01', 'cam02', 'cam03', 'cam04'];
const longSeconds = Number(process.env.KINETRACE_BENCH_LONG_S ?? 6);

const rssMb = () => process.resourceUsage().maxRSS / 1024;
const fps = (frames: number, seconds: number) => (seconds > 0 ? (frames / seconds).toFixed(1) : '-');

async function main(): Promise<void> {
  if (!existsSync(join(dataDir, 'videos/cam01.mp4'))) {
    console.log(`skipped: reference data missing (${dataDir})`);
    return;
  }
  const cameras = readQualisysCalibration(readFileSync(join(dataDir, 'calibration/Calib.qca.txt'), 'utf8'));
  console.log(`machine: ${availableParallelism()} cores; pose model ${DEFAULT_POSE_MODEL}; Node ${process.version}`);

  // Decoding alone, at the size the pose model takes, to separate it from the pose model's time.
  let decoded = 0;
  const decodeStart = performance.now();
  for (const name of cameraNames) {
    for await (const frame of decodeFrames(join(dataDir, `videos/${name}.mp4`), {
      pixelFormat: 'rgb24',
      maxWidth: POSE_INPUT_MAX_SIDE_PX,
      maxHeight: POSE_INPUT_MAX_SIDE_PX,
    })) {
      decoded += frame.data.length > 0 ? 1 : 0;
    }
  }
  const decodeSeconds = (performance.now() - decodeStart) / 1000;
  console.log(
    `decode only (1080x1920 -> ${POSE_INPUT_MAX_SIDE_PX} px, rgb24): ${decoded} camera frames in ${decodeSeconds.toFixed(2)} s = ${fps(decoded, decodeSeconds)} camera frames/s`,
  );

  const run = async (label: string, videoDir: string) => {
    const started = performance.now();
    const result = await processTrial({
      trialName: label,
      cameras,
      videos: cameraNames.map((cameraName) => ({ cameraName, path: join(videoDir, `${cameraName}.mp4`) })),
    });
    report(label, result, (performance.now() - started) / 1000);
    return result;
  };

  const demoKeypoints = (await run('demo (1.67 s, 4 cameras)', join(dataDir, 'videos'))).keypoints2D;
  const demoRssMb = rssMb();
  console.log(`peak RSS after the demo trial: ${demoRssMb.toFixed(0)} MB`);

  // A longer trial: each camera's video looped to longSeconds and re-encoded, so that every camera has
  // exactly longSeconds × 60 frames with monotonic timestamps (a stream copy repeats the last GOP's
  // packets across the seam and gives one camera a frame more than another).
  const loopDir = mkdtempSync(join(tmpdir(), 'kinetrace-bench-'));
  try {
    for (const name of cameraNames) {
      const loop = spawnSync(ffmpegPath(), [
        '-hide_banner',
        '-loglevel',
        'error',
        '-y',
        '-stream_loop',
        String(Math.ceil(longSeconds / 1.6)),
        '-i',
        join(dataDir, `videos/${name}.mp4`),
        '-c:v',
        'libx264',
        '-preset',
        'ultrafast',
        '-crf',
        '18',
        '-an',
        '-t',
        String(longSeconds),
        join(loopDir, `${name}.mp4`),
      ]);
      if (loop.status !== 0) throw new Error(`ffmpeg could not loop ${name}: ${loop.stderr}`);
    }
    await run(`looped demo (${longSeconds} s, 4 cameras)`, loopDir);
  } finally {
    rmSync(loopDir, { recursive: true, force: true });
  }
  const longRssMb = rssMb();
  const perSecondMb = Math.max(0, (longRssMb - demoRssMb) / (longSeconds - 100 / 60));
  console.log(
    `peak RSS after the ${longSeconds} s trial: ${longRssMb.toFixed(0)} MB (+${(longRssMb - demoRssMb).toFixed(0)} MB for ${(longSeconds - 100 / 60).toFixed(1)} s more video); ` +
      `estimate for a 60 s 4-camera 1080p trial: ${(longRssMb + perSecondMb * (60 - longSeconds)).toFixed(0)} MB (goal < 1536 MB)`,
  );

  // The stages after pose on 60 s of keypoints (the demo's 2D keypoints tiled), timed on their own.
  const repeats = Math.ceil(3600 / demoKeypoints[0].frameCount);
  const tiled = demoKeypoints.map((k) => {
    const frames = k.frameCount * repeats;
    const data = new Float32Array(k.data.length * repeats);
    for (let r = 0; r < repeats; r++) data.set(k.data, r * k.data.length);
    return {
      ...k,
      frameCount: frames,
      timestampsS: Float64Array.from({ length: frames }, (_, i) => i / k.fps),
      data,
      personFound: new Uint8Array(frames).fill(1),
    };
  });
  const stageStart = new Map<string, number>();
  const stageSeconds = new Map<string, number>();
  const started = performance.now();
  reconstructTrial(cameras, tiled, {
    trialName: 'tiled',
    onProgress: (stage, done, total) => {
      if (!stageStart.has(stage)) stageStart.set(stage, performance.now());
      if (done >= total) stageSeconds.set(stage, (performance.now() - stageStart.get(stage)!) / 1000);
    },
  });
  const totalSeconds = (performance.now() - started) / 1000;
  const frames = tiled[0].frameCount;
  console.log(
    `after-pose stages on ${(frames / 60).toFixed(0)} s of keypoints (${frames} frames x 4 cameras): ${totalSeconds.toFixed(2)} s in all; ` +
      [...stageSeconds]
        .map(([stage, s]) => `${stage} ${s.toFixed(3)} s (${fps(frames * 4, s)} camera frames/s)`)
        .join(', '),
  );
  console.log(`peak RSS at the end: ${rssMb().toFixed(0)} MB`);
}

function medianSd(result: TrialResult): number {
  const sds = result.report.segments.map((segment) => segment.sdM).sort((a, b) => a - b);
  return sds.length === 0 ? Number.NaN : (sds[(sds.length - 1) >> 1] + sds[sds.length >> 1]) / 2;
}

function report(label: string, result: TrialResult, seconds: number): void {
  const frames = result.cameraFrames;
  const stages = result.stageSeconds;
  const afterPose = (stages.sync ?? 0) + (stages.triangulate ?? 0) + (stages.filter ?? 0);
  const timeBaseFrames = result.keypoints.timesS.length;
  console.log(
    [
      `${label}: ${frames} camera frames end to end in ${seconds.toFixed(2)} s = ${fps(frames, seconds)} camera frames/s (goal >= 20)`,
      `  decode + pose: ${(stages.pose ?? 0).toFixed(2)} s = ${fps(frames, stages.pose ?? 0)} camera frames/s`,
      `  sync: ${(stages.sync ?? 0).toFixed(3)} s; triangulate: ${(stages.triangulate ?? 0).toFixed(3)} s (${fps(timeBaseFrames, stages.triangulate ?? 0)} frames/s of ${cameraNames.length} cameras); filter: ${(stages.filter ?? 0).toFixed(4)} s`,
      `  stages other than pose: ${afterPose.toFixed(2)} s = ${((100 * afterPose) / seconds).toFixed(1)} % of the total (goal < 20 %)`,
      `  sync lags (frames): ${result.sync.cameras.map((c) => `${c.lagFrames.toFixed(2)}${c.refined ? '' : ' (start time kept)'}`).join(', ')}; median reprojection error ${result.report.reprojectionErrorPx?.medianPx.toFixed(1)} px; ` +
        `median segment-length SD ${(1000 * medianSd(result)).toFixed(1)} mm`,
    ].join('\n'),
  );
}

await main();
