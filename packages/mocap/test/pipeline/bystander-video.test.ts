import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { CameraModel } from '../../src/camera/camera.ts';
import { readQualisysCalibration } from '../../src/camera/formats/qualisys.ts';
import { reconstructTrial, type Reconstruction } from '../../src/pipeline/reconstruct-trial.ts';
import { POSE_INPUT_MAX_SIDE_PX } from '../../src/pose/pose-model.ts';
import type { Keypoints2D } from '../../src/pose/types.ts';
import { ffmpegPath } from '../../src/video/binaries.ts';
import { describeWithData, referencePath } from '../reference-data.ts';
import { median } from '../calibration/pose2sim-reference.ts';
import { detectedPoses } from '../pose/detection-cache.ts';

const demo = 'pose2sim_demo/Pose2Sim/Demo_SinglePerson';
const cameraNames = ['cam01', 'cam02', 'cam03', 'cam04'];
/** The cameras a second person is composited into (neither sees anyone but the subject). */
const composited = [2, 3];
/** One second at 60 fps keeps pose time low. */
const CLIP_FRAMES = 60;
const run = promisify(execFile);

/** Width of the panel holding the second person beside a camera's own image. */
const PANEL_PX = 1400;

/**
 * The first second of a camera, re-encoded (clean and composited clips go through the same
 * encoder, so the second person is their only difference). With `bystander`: a panel beside the
 * camera's image showing the subject as cam01 filmed them 0.6 s later, 1.5 times larger, so a
 * person larger than the subject who moves like a person but is seen by no other camera. The
 * camera's own pixels keep their coordinates (the panel is on the right), so its calibration holds.
 */
async function clip(cameraName: string, out: string, bystander: boolean): Promise<void> {
  const video = referencePath(`${demo}/videos/${cameraName}.mp4`);
  const source = bystander
    ? [
        '-i',
        video,
        '-ss',
        '0.6',
        '-i',
        referencePath(`${demo}/videos/cam01.mp4`),
        '-filter_complex',
        `[1:v]setpts=PTS-STARTPTS,scale=iw*1.5:-2,crop=${PANEL_PX}:1920:100:500[other];[0:v][other]hstack`,
      ]
    : ['-i', video];
  await run(ffmpegPath(), [
    '-loglevel',
    'error',
    '-y',
    ...source,
    '-frames:v',
    String(CLIP_FRAMES),
    '-an',
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-crf',
    '12',
    out,
  ]);
}

describeWithData(
  'a real second person composited into two of the four demo cameras (1 s, default pose model)',
  cameraNames.map((name) => `${demo}/videos/${name}.mp4`),
  () => {
    const cameras: CameraModel[] = readQualisysCalibration(
      readFileSync(referencePath(`${demo}/calibration/Calib.qca.txt`), 'utf8'),
    );
    let dir: string;
    let clean: Keypoints2D[];
    let withBystander: Keypoints2D[];
    const reconstruct = (keypoints: readonly Keypoints2D[]): Reconstruction =>
      reconstructTrial(cameras, keypoints, { trialName: 'bystander', synchronise: false, requireSync: false });

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'kinetrace-bystander-'));
      await Promise.all(cameraNames.map((name) => clip(name, join(dir, `${name}.mp4`), false)));
      await Promise.all(
        composited.map((c) => clip(cameraNames[c], join(dir, `${cameraNames[c]}-bystander.mp4`), true)),
      );
      // Kept by the clips' bytes (detectedPoses): the encoder makes the same clips on every run.
      clean = await detectedPoses(cameraNames.map((name) => join(dir, `${name}.mp4`)));
      withBystander = [...clean];
      for (const c of composited) {
        // Decoded at the clean clip's scale (the long side is 1920 px in both), so the subject's pixels are the same.
        const maxSidePx = Math.round((POSE_INPUT_MAX_SIDE_PX * (cameras[c].imageSize.width + PANEL_PX)) / 1920);
        [withBystander[c]] = await detectedPoses([join(dir, `${cameraNames[c]}-bystander.mp4`)], { maxSidePx });
      }
    }, 600_000);
    afterAll(() => {
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('keeps the other person it sees, and reconstructs the subject in every frame as without them', () => {
      // The pose stage keeps the composited person in the two cameras (there, the larger one).
      for (const c of composited) expect(withBystander[c].otherPeople?.length ?? 0).toBeGreaterThan(0);
      const reference = reconstruct(clean);
      const result = reconstruct(withBystander);
      const names = reference.keypoints.markerNames;
      const frames = reference.keypoints.timesS.length;
      expect(result.keypoints.timesS.length).toBe(frames);
      // Tracked keypoints of the person left alone: what a tracker that followed the larger person gives.
      const trackedOnly = reconstruct(withBystander.map((k) => ({ ...k, otherPeople: undefined })));
      // Per frame, the median distance over the keypoints to the clean reconstruction (the subject's
      // keypoints in the two cameras come from the landmark model run on another region, so a wrist
      // or a toe may move by a few centimetres); then the worst frame.
      const frameDistances = (positions: Float64Array | Float32Array) =>
        Array.from({ length: frames }, (_, frame) => {
          const distances: number[] = [];
          const p = reference.keypoints.positionsM;
          for (let i = frame * names.length * 3; i < (frame + 1) * names.length * 3; i += 3) {
            const d = Math.hypot(p[i] - positions[i], p[i + 1] - positions[i + 1], p[i + 2] - positions[i + 2]);
            if (!Number.isNaN(d)) distances.push(d);
          }
          distances.sort((x, y) => x - y);
          return { median: distances[distances.length >> 1], worst: distances[distances.length - 1] };
        });
      const perFrame = frameDistances(result.keypoints.positionsM);
      const worstMedianM = Math.max(...perFrame.map((frame) => frame.median));
      const worstM = Math.max(...perFrame.map((frame) => frame.worst));
      const trackedOnlyM = Math.max(...frameDistances(trackedOnly.keypoints.positionsM).map((frame) => frame.median));
      console.log(
        `composited bystander in ${composited.map((c) => cameraNames[c]).join(' and ')} (${names.length} keypoints x ${frames} frames): median distance to the clean ` +
          `reconstruction ${(median(perFrame.map((frame) => frame.median)) * 1000).toFixed(1)} mm over the frames, at most ${(worstMedianM * 1000).toFixed(1)} mm in a frame, worst keypoint ${(worstM * 1000).toFixed(0)} mm; tracked person only: ${(trackedOnlyM * 1000).toFixed(0)} mm; ` +
          `frames with others ${result.report.cameras.map((camera) => camera.framesWithOtherPeople).join('/')}, reassigned ${result.report.cameras.map((camera) => camera.framesPersonReassigned).join('/')}`,
      );
      // Measured: 2-14 mm in all frames but the second (37 mm: both of its first two frames are
      // detected afresh, the subject in an odd rotated region); the bystander is metres away.
      expect(trackedOnlyM).toBeGreaterThan(1);
      expect(worstMedianM).toBeLessThan(0.05);
      expect(median(perFrame.map((frame) => frame.median))).toBeLessThan(0.01);
      for (const c of composited)
        expect(result.report.cameras[c].framesWithOtherPeople).toBeGreaterThan(CLIP_FRAMES / 2);
      expect(result.report.warnings.some((warning) => warning.startsWith('Other people were seen by'))).toBe(true);
    });
  },
);
