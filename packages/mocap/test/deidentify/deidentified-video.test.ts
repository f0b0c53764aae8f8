import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { FACE_MIN_CONFIDENCE, faceFound } from '../../src/deidentify/face-regions.ts';
import { detectPose2D } from '../../src/pose/detect-pose.ts';
import { keypointIndex, VIDEO_KEYPOINTS } from '../../src/pose/keypoints.ts';
import { POSE_INPUT_MAX_SIDE_PX } from '../../src/pose/pose-model.ts';
import { PoseWorkerPool } from '../../src/pose/pose-worker-pool.ts';
import { KEYPOINT_VALUES, type Keypoints2D } from '../../src/pose/types.ts';
import { RESULT_TAG } from '../../src/session/result-tags.ts';
import { writeSyncVideos } from '../../src/session/sync-videos.ts';
import type { OutputFile } from '../../src/session/types.ts';
import { decodeFrames } from '../../src/video/decode.ts';
import { probeVideo } from '../../src/video/probe.ts';
import type { VideoFrame } from '../../src/video/types.ts';
import { describeWithData, referencePath } from '../reference-data.ts';

/**
 * Issue 21: a shared de-identified video shows no face. A short clip of the Pose2Sim demo (cam01,
 * the first 0.4 s: the subject's face and a bystander's), through the real pose model and the
 * synchronised videos' writer: wherever the pose model finds a face, the de-identified video's
 * face has lost its detail (its high-frequency energy) against the synchronised original, while
 * the rest of the picture keeps it.
 */
const video = 'pose2sim_demo/Pose2Sim/Demo_SinglePerson/videos/cam01.mp4';
const CLIP_FRAMES = 24;
const FACE_INDICES = (['Nose', 'LEye', 'REye', 'LEar', 'REar'] as const).map(keypointIndex);

/** Mean squared Laplacian of the luma inside a box: what sharp detail (eyes, mouth, edges) is there. */
function detailEnergy(frame: VideoFrame, box: { x0: number; y0: number; x1: number; y1: number }): number {
  const luma = (x: number, y: number) => {
    const i = (y * frame.width + x) * 3;
    return 0.299 * frame.data[i] + 0.587 * frame.data[i + 1] + 0.114 * frame.data[i + 2];
  };
  let sum = 0;
  let count = 0;
  for (let y = Math.max(1, box.y0); y < Math.min(frame.height - 1, box.y1); y++) {
    for (let x = Math.max(1, box.x0); x < Math.min(frame.width - 1, box.x1); x++) {
      const laplacian = 4 * luma(x, y) - luma(x - 1, y) - luma(x + 1, y) - luma(x, y - 1) - luma(x, y + 1);
      sum += laplacian * laplacian;
      count++;
    }
  }
  return sum / count;
}

/** The box of a person's face keypoints found in a frame, in the synchronised video's pixels, with a few pixels around. */
function faceBox(layer: Float32Array, frame: number, scale: number) {
  const points = FACE_INDICES.map((k) => (frame * VIDEO_KEYPOINTS.length + k) * KEYPOINT_VALUES)
    .filter((i) => layer[i + 2] >= FACE_MIN_CONFIDENCE)
    .map((i) => [layer[i] * scale, layer[i + 1] * scale]);
  const xs = points.map(([x]) => x);
  const ys = points.map(([, y]) => y);
  const margin = 4;
  return {
    x0: Math.floor(Math.min(...xs) - margin),
    x1: Math.ceil(Math.max(...xs) + margin),
    y0: Math.floor(Math.min(...ys) - margin),
    y1: Math.ceil(Math.max(...ys) + margin),
  };
}

async function framesOf(path: string): Promise<VideoFrame[]> {
  const frames: VideoFrame[] = [];
  for await (const frame of decodeFrames(path, { pixelFormat: 'rgb24' })) frames.push(frame);
  return frames;
}

describeWithData('de-identified synchronised videos of the Pose2Sim demo', [video], () => {
  const outDir = mkdtempSync(join(tmpdir(), 'kinetrace-deidentified-'));
  let keypoints: Keypoints2D;
  let files: OutputFile[];

  beforeAll(async () => {
    const path = referencePath(video);
    const info = await probeVideo(path);
    const pool = await PoseWorkerPool.start({ model: 'blazepose-full', workers: 1 });
    try {
      keypoints = await detectPose2D(
        decodeFrames(path, {
          info,
          pixelFormat: 'rgb24',
          maxWidth: POSE_INPUT_MAX_SIDE_PX,
          maxHeight: POSE_INPUT_MAX_SIDE_PX,
          endFrame: CLIP_FRAMES,
        }),
        { pool, imageSize: { width: info.width, height: info.height }, fps: info.fps },
      );
    } finally {
      await pool.close();
    }
    const timesS = info.timestampsS.slice(0, CLIP_FRAMES);
    const clock = {
      startS: timesS[0],
      frameRateHz: info.fps,
      timesS: timesS.map((t) => t - timesS[0]),
      offsetsS: [0],
    };
    files = await writeSyncVideos(clock, [{ cameraName: 'cam01', path }], [keypoints], 'balance', outDir);
  }, 300_000);

  afterAll(() => rmSync(outDir, { recursive: true, force: true }));

  it('writes beside each synchronised video one with every face the pose model found blurred, and keeps the rest of the picture', async () => {
    expect(files.map((file) => [file.tag, file.cameraName])).toEqual([
      [RESULT_TAG.videoSync, 'cam01'],
      [RESULT_TAG.videoSyncDeidentified, 'cam01'],
    ]);
    const original = await framesOf(files[0].path);
    const deidentified = await framesOf(files[1].path);
    expect(deidentified).toHaveLength(CLIP_FRAMES);
    expect(original).toHaveLength(CLIP_FRAMES);
    const scale = original[0].width / keypoints.imageSize.width;
    const people = [keypoints.data, ...(keypoints.otherPeople ?? [])];

    let facesChecked = 0;
    let subjectFaces = 0;
    for (let frame = 0; frame < CLIP_FRAMES; frame++) {
      for (const [person, layer] of people.entries()) {
        if (!faceFound(layer, frame)) continue;
        const box = faceBox(layer, frame, scale);
        const before = detailEnergy(original[frame], box);
        const after = detailEnergy(deidentified[frame], box);
        // A face left sharp keeps its energy (≈ 1 after the same encoding); blurred, what is left is the encoder's noise.
        expect(
          after / before,
          `frame ${frame}, person ${person}: ${before.toFixed(0)} → ${after.toFixed(0)}`,
        ).toBeLessThan(0.2);
        facesChecked++;
        if (person === 0) subjectFaces++;
      }
      // The floor in front of the subject's feet (the bottom sixth of the picture) is untouched.
      const floor = {
        x0: 0,
        x1: original[frame].width,
        y0: Math.round((5 / 6) * original[frame].height),
        y1: original[frame].height,
      };
      expect(detailEnergy(deidentified[frame], floor) / detailEnergy(original[frame], floor)).toBeGreaterThan(0.8);
    }
    // The subject faces this camera: the pose model finds their face in most frames.
    expect(subjectFaces).toBeGreaterThanOrEqual(CLIP_FRAMES / 2);
    expect(facesChecked).toBeGreaterThanOrEqual(subjectFaces);
  });
});
