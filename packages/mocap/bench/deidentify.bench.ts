/**
 * What de-identified videos cost (issue 21), on the demo's cam01 (1080x1920, 60 fps, 100 frames),
 * its keypoints from the real pose model: the synchronised videos of one camera (the original and
 * the faces-blurred twin from one decode at 720 px, two H.264 encodes), against the original alone
 * as it was made before (a decode and an encode), the face squares from the
 * keypoints, and the blur alone per frame. CPU time (this process and its ffmpeg children), as the
 * machine may be shared.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { blurRegions, BlurScratch } from '../src/deidentify/blur-regions.ts';
import { faceRegions } from '../src/deidentify/face-regions.ts';
import { detectPose2D } from '../src/pose/detect-pose.ts';
import { POSE_INPUT_MAX_SIDE_PX } from '../src/pose/pose-model.ts';
import { PoseWorkerPool } from '../src/pose/pose-worker-pool.ts';
import { writeSyncVideos } from '../src/session/sync-videos.ts';
import { decodeFrames } from '../src/video/decode.ts';
import { writeH264Mp4s } from '../src/video/encode.ts';
import { probeVideo } from '../src/video/probe.ts';

const path = resolve(
  fileURLToPath(
    new URL('../../../../shared/data/pose2sim_demo/Pose2Sim/Demo_SinglePerson/videos/cam01.mp4', import.meta.url),
  ),
);
if (!existsSync(path)) {
  console.log(`deidentify bench skipped: ${path} is missing`);
  process.exit(0);
}

/** CPU seconds of this process and its finished children (ffmpeg), from /proc/self/stat (clock ticks of 1/100 s). */
function cpuSeconds(): number {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
  return [11, 12, 13, 14].reduce((sum, index) => sum + Number(fields[index]), 0) / 100;
}

const info = await probeVideo(path);
const pool = await PoseWorkerPool.start({ model: 'blazepose-full', workers: availableParallelism() });
const keypoints = await detectPose2D(
  decodeFrames(path, {
    info,
    pixelFormat: 'rgb24',
    maxWidth: POSE_INPUT_MAX_SIDE_PX,
    maxHeight: POSE_INPUT_MAX_SIDE_PX,
  }),
  { pool, imageSize: { width: info.width, height: info.height }, fps: info.fps },
);
await pool.close();

const cpuMs = (started: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(started);
  return (used.user + used.system) / 1000;
};
let started = process.cpuUsage();
const regions = faceRegions(keypoints);
console.log(`face squares: ${cpuMs(started).toFixed(1)} CPU ms for ${info.frameCount} frames`);

const frames = [];
for await (const frame of decodeFrames(path, { info, pixelFormat: 'rgb24', maxHeight: 720 })) frames.push(frame);
const scratch = new BlurScratch();
started = process.cpuUsage();
for (const frame of frames) blurRegions(frame, regions[frame.index], frame.width / info.width, scratch);
console.log(
  `blur: ${(cpuMs(started) / frames.length).toFixed(2)} CPU ms a ${frames[0].width}x${frames[0].height} frame`,
);

const outDir = mkdtempSync(join(tmpdir(), 'kinetrace-bench-deid-'));
try {
  const clock = {
    startS: info.timestampsS[0],
    frameRateHz: info.fps,
    timesS: info.timestampsS.map((t) => t - info.timestampsS[0]),
    offsetsS: [0],
  };
  const cpuBefore = cpuSeconds();
  await writeSyncVideos(clock, [{ cameraName: 'cam01', path }], [keypoints], 'bench', outDir);
  const bothS = cpuSeconds() - cpuBefore;
  const originalBefore = cpuSeconds();
  // The original alone, as it was made before: decoded to RGB at 720 px, piped to one encoder.
  async function* originalOnly() {
    for await (const frame of decodeFrames(path, { info, pixelFormat: 'rgb24', maxHeight: 720 })) yield [frame.data];
  }
  await writeH264Mp4s(originalOnly(), { width: frames[0].width, height: frames[0].height, fps: info.fps }, [
    join(outDir, 'alone.mp4'),
  ]);
  const aloneS = cpuSeconds() - originalBefore;
  const perFrame = (seconds: number) => `${((seconds / info.frameCount) * 1000).toFixed(1)} CPU ms a frame`;
  console.log(
    `synchronised videos of one camera: original and de-identified ${perFrame(bothS)}; the original alone ${perFrame(aloneS)} ` +
      `(de-identified adds ${(((bothS - aloneS) / aloneS) * 100).toFixed(0)} %)`,
  );
} finally {
  rmSync(outDir, { recursive: true, force: true });
}
