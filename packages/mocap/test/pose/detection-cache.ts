import { createHash } from 'node:crypto';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deserialize, serialize } from 'node:v8';
import {
  DEFAULT_POSE_MODEL,
  POSE_INPUT_MAX_SIDE_PX,
  POSE_MODEL_NAMES,
  type PoseModelName,
} from '../../src/pose/pose-model.ts';
import { PoseWorkerPool } from '../../src/pose/pose-worker-pool.ts';
import { packagedModelsDir } from '../../src/pose/packaged-models.ts';
import type { Keypoints2D } from '../../src/pose/types.ts';
import { detectPoseInVideo } from '../../src/pose/video-pose.ts';
import { ffmpegPath, ffprobePath } from '../../src/video/binaries.ts';

/**
 * Detections of the demo videos, made once and kept under .tmp for every test file that needs them
 * as input to later stages: several files detected the same videos, at about 50 ms a camera frame
 * per core. A detection is kept under a hash of everything that changes it (see detectionKey), so a
 * change to the detector's code, its models or the video detects again.
 */
export interface DetectionSettings {
  model?: PoseModelName;
  /** Pose worker threads (default 2 whatever the machine: the tracking regions, so the keypoints, depend on it). */
  workers?: number;
  /** Longer side the frames are decoded at (default POSE_INPUT_MAX_SIDE_PX). */
  maxSidePx?: number;
}

/**
 * The model a bench of the later stages detects the demo with: BENCH_POSE_MODEL, or the default (so that
 * what a chain's figures owe to the detector can be measured: `BENCH_POSE_MODEL=blazepose-heavy npm run bench -- two-cameras`).
 */
export function benchPoseModel(): PoseModelName {
  const requested = process.env.BENCH_POSE_MODEL;
  if (requested === undefined || requested === '') return DEFAULT_POSE_MODEL;
  return poseModelNamed(requested, 'BENCH_POSE_MODEL');
}

/** `name` as a pose model, or an error saying which names `variable` (an environment variable) takes. */
export function poseModelNamed(name: string, variable: string): PoseModelName {
  if (!(POSE_MODEL_NAMES as readonly string[]).includes(name))
    throw new Error(`${variable} must name ${POSE_MODEL_NAMES.join(', ')}, not "${name}"`);
  return name as PoseModelName;
}

const cacheDir = fileURLToPath(new URL('../../../../.tmp/pose-detections', import.meta.url));
const sourceDir = fileURLToPath(new URL('../../src', import.meta.url));
/** The engine's code a detection runs through: decoding, then the pose stage. */
const DETECTION_SOURCES = ['video', 'pose'];
const require = createRequire(import.meta.url);
const RUNTIME_PACKAGES = ['@tensorflow/tfjs-core', '@tensorflow/tfjs-converter', '@tensorflow/tfjs-backend-wasm'];

/** What every detection with these settings shares: code, runtime, models, decoder and settings. */
function settingsHash(settings: Required<DetectionSettings>): string {
  const hash = createHash('sha256').update(JSON.stringify(settings));
  for (const folder of DETECTION_SOURCES) {
    const root = join(sourceDir, folder);
    for (const file of readdirSync(root, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => join(entry.parentPath, entry.name))
      .sort())
      hash.update(file.slice(sourceDir.length)).update(readFileSync(file));
  }
  for (const name of RUNTIME_PACKAGES) hash.update(readFileSync(packageJsonOf(name)));
  const models = packagedModelsDir();
  for (const file of readdirSync(models)
    .filter((file) => file.startsWith('blazepose-detector.') || file.startsWith(`${settings.model}.`))
    .sort())
    hash.update(file).update(readFileSync(join(models, file)));
  // The decoder binaries by path, size and time (a system ffmpeg set by FFMPEG_PATH decodes differently).
  for (const binary of [ffmpegPath(), ffprobePath()]) {
    const { size, mtimeMs } = statSync(binary);
    hash.update(`${binary}:${size}:${mtimeMs}`);
  }
  return hash.digest('hex');
}

/** A package's package.json (most do not export it): found from its entry module's folder upwards. */
function packageJsonOf(name: string): string {
  for (let dir = dirname(require.resolve(name)); dir !== dirname(dir); dir = dirname(dir)) {
    const candidate = join(dir, 'package.json');
    if (existsSync(candidate) && (JSON.parse(readFileSync(candidate, 'utf8')) as { name?: string }).name === name)
      return candidate;
  }
  throw new Error(`No package.json found for ${name}`);
}

const settingsHashes = new Map<string, string>();
function detectionKey(videoPath: string, settings: Required<DetectionSettings>): string {
  const settingsKey = JSON.stringify(settings);
  if (!settingsHashes.has(settingsKey)) settingsHashes.set(settingsKey, settingsHash(settings));
  return createHash('sha256')
    .update(settingsHashes.get(settingsKey)!)
    .update(readFileSync(videoPath))
    .digest('hex')
    .slice(0, 24);
}

/** This process's detections, by key: a file that asks twice detects once. */
const inProcess = new Map<string, Promise<Keypoints2D>>();

/**
 * Each video's 2D keypoints, as detectPoseInVideo gives them with a pool of `settings.workers`
 * workers: from this process's memory, else from .tmp, else detected (then kept in both).
 */
export async function detectedPoses(
  videoPaths: readonly string[],
  settings: DetectionSettings = {},
): Promise<Keypoints2D[]> {
  const full: Required<DetectionSettings> = {
    model: settings.model ?? DEFAULT_POSE_MODEL,
    workers: settings.workers ?? 2,
    maxSidePx: settings.maxSidePx ?? POSE_INPUT_MAX_SIDE_PX,
  };
  const keys = videoPaths.map((path) => detectionKey(path, full));
  const toFetch = keys.flatMap((key, i) => (inProcess.has(key) ? [] : [{ key, path: videoPaths[i] }]));
  const fetched = fetchAll(toFetch, full);
  toFetch.forEach(({ key }, i) => {
    const result = fetched.then((all) => all[i]);
    inProcess.set(key, result);
    // A failed detection is not kept: the next caller tries again.
    result.catch(() => inProcess.delete(key));
  });
  return Promise.all(keys.map((key) => inProcess.get(key)!));
}

/** The videos' detections from .tmp where kept, the others detected on one pool, one video at a time. */
async function fetchAll(
  videos: readonly { key: string; path: string }[],
  settings: Required<DetectionSettings>,
): Promise<Keypoints2D[]> {
  mkdirSync(cacheDir, { recursive: true });
  let pool: Promise<PoseWorkerPool> | undefined;
  try {
    const results: Keypoints2D[] = [];
    for (const { key, path } of videos)
      results.push(
        await keptOrMade(join(cacheDir, `${key}.v8`), async () => {
          pool ??= PoseWorkerPool.start({ model: settings.model, workers: settings.workers });
          return detectPoseInVideo(path, { pool: await pool, maxSidePx: settings.maxSidePx });
        }),
      );
    return results;
  } finally {
    if (pool) await (await pool).close();
  }
}

/** How often a process waiting for another's detection looks whether it is done. */
const POLL_MS = 250;

/**
 * The detection kept at `file`, or made by `detect` and kept there. Made under a lock file holding
 * the maker's pid, so that of two test processes wanting the same detection one makes it and the
 * other waits for it (two detecting at once would share the two cores); written aside and renamed
 * into place, so that no process reads a half-written one.
 */
async function keptOrMade(file: string, detect: () => Promise<Keypoints2D>): Promise<Keypoints2D> {
  const lock = `${file}.lock`;
  for (;;) {
    if (existsSync(file)) return deserialize(readFileSync(file)) as Keypoints2D;
    if (takeLock(lock)) break;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  try {
    // Made by the process that held the lock just before this one took it.
    if (existsSync(file)) return deserialize(readFileSync(file)) as Keypoints2D;
    const keypoints = await detect();
    const aside = `${file}.${process.pid}`;
    writeFileSync(aside, serialize(keypoints));
    renameSync(aside, file);
    return keypoints;
  } finally {
    rmSync(lock, { force: true });
  }
}

/** Takes the lock file, or clears it when the process that held it is gone (then takes it on the next try). */
function takeLock(lock: string): boolean {
  try {
    const fd = openSync(lock, 'wx');
    writeSync(fd, String(process.pid));
    closeSync(fd);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const holder = Number(readFileSafely(lock));
  if (holder > 0 && !isRunning(holder)) rmSync(lock, { force: true });
  return false;
}

function readFileSafely(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
