/**
 * Video decoding and 2D pose speed on the 4 real demo cameras (1080x1920, 60 fps, 100 frames each):
 * frames per second of decoding alone (downscaled to the pose input size, RGB), then of decoding +
 * pose end to end through the worker pool (one worker per core) for each BlazePose model, and the
 * process's peak resident memory (workers are threads, so it counts them), also after a 10x longer
 * stream to show it does not grow with the trial's length. Set BENCH_POSE_MODELS
 * (comma-separated) to time only some models, BENCH_POSE_WORKERS to change the pool size.
 */
import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { detectPose2D } from '../src/pose/detect-pose.ts';
import { DEFAULT_POSE_MODEL, POSE_INPUT_MAX_SIDE_PX, POSE_MODEL_NAMES } from '../src/pose/pose-model.ts';
import { PoseWorkerPool } from '../src/pose/pose-worker-pool.ts';
import { decodeFrames } from '../src/video/decode.ts';
import { probeVideo } from '../src/video/probe.ts';
import { poseModelNamed } from '../test/pose/detection-cache.ts';

const videosDir = resolve(
  fileURLToPath(new URL('../../../../shared/data/pose2sim_demo/Pose2Sim/Demo_SinglePerson/videos', import.meta.url)),
);
const videos = ['cam01', 'cam02', 'cam03', 'cam04'].map((camera) => resolve(videosDir, `${camera}.mp4`));
const models =
  process.env.BENCH_POSE_MODELS?.split(',').map((name) => poseModelNamed(name.trim(), 'BENCH_POSE_MODELS')) ??
  POSE_MODEL_NAMES;
const workers = Number(process.env.BENCH_POSE_WORKERS ?? availableParallelism());
const peakRssMb = () => (process.resourceUsage().maxRSS / 1024).toFixed(0);

/**
 * CPU seconds used by this process (all its threads) and its finished children (ffmpeg), from
 * /proc/self/stat (utime, stime, cutime, cstime in clock ticks of 1/100 s). On a machine shared
 * with other jobs, wall-clock rates understate what the code does on idle cores; frames per CPU
 * second times the core count is the rate those cores would reach when the work is spread evenly.
 */
function cpuSeconds(): number {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
  return [11, 12, 13, 14].reduce((sum, index) => sum + Number(fields[index]), 0) / 100;
}
const cores = availableParallelism();
const rates = (frames: number, wallS: number, cpuS: number) =>
  `${(frames / wallS).toFixed(1)} frames/s wall clock, ${((frames / cpuS) * cores).toFixed(1)} frames/s on ${cores} idle cores ` +
  `(${((cpuS / frames) * 1000).toFixed(1)} CPU ms a frame)`;

if (!videos.every((path) => existsSync(path))) {
  console.log(`pose bench skipped: the demo videos are missing under ${videosDir}`);
  process.exit(0);
}

const infos = await Promise.all(videos.map((path) => probeVideo(path)));
const decodeOptions = {
  pixelFormat: 'rgb24',
  maxWidth: POSE_INPUT_MAX_SIDE_PX,
  maxHeight: POSE_INPUT_MAX_SIDE_PX,
} as const;

for (const [label, options] of [
  [`at ${POSE_INPUT_MAX_SIDE_PX} px`, decodeOptions],
  ['at full size (1080x1920)', { pixelFormat: 'rgb24' }],
] as const) {
  const start = performance.now();
  const cpuStart = cpuSeconds();
  let decoded = 0;
  for (const info of infos) for await (const _frame of decodeFrames(info.path, { ...options, info })) decoded++;
  const seconds = (performance.now() - start) / 1000;
  console.log(
    `decode ${decoded} frames ${label}, RGB: ${rates(decoded, seconds, cpuSeconds() - cpuStart)}, peak RSS ${peakRssMb()} MB`,
  );
}

// Memory flat in trial length: peak RSS after a 100-frame camera, then after a 1000-frame one (the
// first camera ten times over, as one stream), with the default model, before the other models run.
{
  const pool = await PoseWorkerPool.start({ model: DEFAULT_POSE_MODEL, workers });
  await detectPose2D(decodeFrames(infos[0].path, { ...decodeOptions, info: infos[0] }), { pool, imageSize: infos[0] });
  const afterShortMb = peakRssMb();
  async function* tenTimesOver() {
    for (let pass = 0; pass < 10; pass++) {
      for await (const frame of decodeFrames(infos[0].path, { ...decodeOptions, info: infos[0] })) {
        yield { ...frame, timestampS: frame.timestampS + pass * infos[0].durationS };
      }
    }
  }
  const long = await detectPose2D(tenTimesOver(), { pool, imageSize: infos[0] });
  await pool.close();
  console.log(
    `memory, ${DEFAULT_POSE_MODEL}: peak RSS ${afterShortMb} MB after 100 frames, ${peakRssMb()} MB after ${long.frameCount} frames`,
  );
}

for (const model of models) {
  let start = performance.now();
  const pool = await PoseWorkerPool.start({ model, workers });
  const startupS = (performance.now() - start) / 1000;
  start = performance.now();
  const cpuStart = cpuSeconds();
  let frames = 0;
  let found = 0;
  for (const info of infos) {
    const keypoints = await detectPose2D(decodeFrames(info.path, { ...decodeOptions, info }), {
      pool,
      imageSize: info,
      fps: info.fps,
    });
    frames += keypoints.frameCount;
    found += keypoints.personFound.reduce((sum, flag) => sum + flag, 0);
  }
  const seconds = (performance.now() - start) / 1000;
  const cpuS = cpuSeconds() - cpuStart;
  await pool.close();
  console.log(
    `pose ${model}, ${workers} workers, decode + pose end to end: ${rates(frames, seconds, cpuS)}; ` +
      `${frames} camera-frames, person found in ${found}; pool start ${startupS.toFixed(2)} s; peak RSS ${peakRssMb()} MB`,
  );
}
