import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readKeypoints2D } from '../../src/formats/keypoints-2d-files.ts';
import { ProcessingError } from '../../src/pipeline/processing-error.ts';
import { keypointIndex, type VideoKeypoint } from '../../src/pose/keypoints.ts';
import type { Keypoints2D } from '../../src/pose/types.ts';

const root = mkdtempSync(join(tmpdir(), 'kinetrace-keypoint-files-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const imageSize = { width: 1000, height: 2000 };

/** A folder of OpenPose files, one per frame: each frame's people as flat x, y, c lists. */
function openPoseFolder(name: string, frames: number[][][]): string {
  const folder = join(root, name);
  mkdirSync(folder, { recursive: true });
  frames.forEach((people, f) =>
    writeFileSync(
      join(folder, `cam_${String(f).padStart(12, '0')}_keypoints.json`),
      JSON.stringify({ version: 1.3, people: people.map((p) => ({ person_id: [-1], pose_keypoints_2d: p })) }),
    ),
  );
  return folder;
}

/** A person of `count` keypoints, keypoint i at (x0 + i, y0 + 2 i) with confidence 0.9. */
const person = (count: number, x0: number, y0 = 100) =>
  Array.from({ length: count }, (_, i) => [x0 + i, y0 + 2 * i, 0.9]).flat();

const at = (keypoints: Keypoints2D, frame: number, name: VideoKeypoint) => {
  const i = (frame * keypoints.keypointNames.length + keypointIndex(name)) * 3;
  return [...keypoints.data.subarray(i, i + 3)];
};

async function refusal(promise: Promise<unknown>): Promise<ProcessingError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProcessingError);
  expect((error as ProcessingError).code).toBe('KEYPOINTS_UNREADABLE');
  return error as ProcessingError;
}

describe('reading 2D keypoints made elsewhere', () => {
  it('maps COCO-17 onto our keypoints: neck and mid-hip as midpoints, no feet, frame times from the rate', async () => {
    const folder = openPoseFolder('coco', [[person(17, 0)], [person(17, 10)]]);
    const keypoints = await readKeypoints2D({ path: folder, fps: 50 }, 'cam1', { imageSize });
    expect(keypoints.frameCount).toBe(2);
    expect([...keypoints.timestampsS]).toEqual([0, 0.02]);
    expect(keypoints.imageSize).toEqual(imageSize);
    // COCO: 5 LShoulder, 6 RShoulder, 11 LHip, 12 RHip, 16 RAnkle.
    expect(at(keypoints, 1, 'LShoulder').slice(0, 2)).toEqual([15, 110]);
    expect(at(keypoints, 1, 'Neck').slice(0, 2)).toEqual([15.5, 111]);
    expect(at(keypoints, 0, 'midHip').slice(0, 2)).toEqual([11.5, 123]);
    expect(at(keypoints, 0, 'RAnkle').slice(0, 2)).toEqual([16, 132]);
    expect(at(keypoints, 0, 'RHeel')).toEqual([NaN, NaN, 0]);
    expect([...keypoints.personFound]).toEqual([1, 1]);
  });

  it('reads BODY_25 by its count, BODY_25B only when named, and Halpe-26 with its own neck and hip', async () => {
    const body25 = await readKeypoints2D({ path: openPoseFolder('b25', [[person(25, 0)]]), fps: 30 }, 'c', {
      imageSize,
    });
    // BODY_25: 1 Neck, 8 MidHip, 24 RHeel.
    expect(at(body25, 0, 'Neck').slice(0, 2)).toEqual([1, 102]);
    expect(at(body25, 0, 'midHip').slice(0, 2)).toEqual([8, 116]);
    expect(at(body25, 0, 'RHeel').slice(0, 2)).toEqual([24, 148]);
    const body25b = await readKeypoints2D(
      { path: openPoseFolder('b25b', [[person(25, 0)]]), keypointSet: 'body25b', fps: 30 },
      'c',
      { imageSize },
    );
    // BODY_25B: 17 Neck, no mid-hip (11 LHip, 12 RHip), 6 RShoulder.
    expect(at(body25b, 0, 'Neck').slice(0, 2)).toEqual([17, 134]);
    expect(at(body25b, 0, 'midHip').slice(0, 2)).toEqual([11.5, 123]);
    expect(at(body25b, 0, 'RShoulder').slice(0, 2)).toEqual([6, 112]);
    const halpe = await readKeypoints2D({ path: openPoseFolder('halpe', [[person(26, 0)]]), fps: 30 }, 'c', {
      imageSize,
    });
    // Halpe-26: 18 Neck, 19 Hip, 25 RHeel, 21 RBigToe.
    expect(at(halpe, 0, 'Neck').slice(0, 2)).toEqual([18, 136]);
    expect(at(halpe, 0, 'midHip').slice(0, 2)).toEqual([19, 138]);
    expect(at(halpe, 0, 'RHeel').slice(0, 2)).toEqual([25, 150]);
    expect(at(halpe, 0, 'RBigToe').slice(0, 2)).toEqual([21, 142]);
  });

  it('follows the subject, not whoever the file lists first, and keeps the others', async () => {
    // The larger person (at x 500) is the subject; from frame 1 on the files list the bystander first.
    const big = (x: number) => person(17, x, 100).map((v, i) => (i % 3 === 1 ? v * 20 : v));
    const folder = openPoseFolder('two', [
      [big(500), person(17, 0)],
      [person(17, 2), big(505)],
      [person(17, 4), big(510)],
    ]);
    const keypoints = await readKeypoints2D({ path: folder, fps: 30 }, 'c', { imageSize });
    expect([0, 1, 2].map((f) => at(keypoints, f, 'Nose')[0])).toEqual([500, 505, 510]);
    expect(keypoints.otherPeople).toHaveLength(1);
    expect(keypoints.otherPeople![0][2 * keypoints.keypointNames.length * 3]).toBe(4);
  });

  it('takes keypoints with confidence 0 as not found, and a frame with nobody as no person', async () => {
    const partial = person(17, 0);
    partial.splice(0, 3, 0, 0, 0);
    const folder = openPoseFolder('partial', [[partial], []]);
    // Pose2Sim writes a frame where it kept nobody as people: [{}].
    writeFileSync(join(folder, 'cam_000000000002_keypoints.json'), '{"version": 1.3, "people": [{}]}');
    const keypoints = await readKeypoints2D({ path: folder, fps: 30 }, 'c', {
      imageSize,
    });
    expect(at(keypoints, 0, 'Nose')).toEqual([NaN, NaN, 0]);
    expect([...keypoints.personFound]).toEqual([1, 0, 0]);
  });

  it('refuses files that are not keypoints, naming the file and the field', async () => {
    const wrongLength = await refusal(
      readKeypoints2D({ path: openPoseFolder('bad-length', [[[1, 2, 0.5, 3]]]), fps: 30 }, 'cam2', { imageSize }),
    );
    expect(wrongLength.message).toContain('Camera cam2');
    expect(wrongLength.message).toContain('cam_000000000000_keypoints.json');
    expect(wrongLength.message).toContain('people.0.pose_keypoints_2d: Keypoints must be x, y, confidence triplets');
    expect(wrongLength.cameras).toEqual(['cam2']);
    const unknownSet = await refusal(
      readKeypoints2D({ path: openPoseFolder('k18', [[person(18, 0)]]), fps: 30 }, 'c', { imageSize }),
    );
    expect(unknownSet.message).toContain('18 keypoints is no set we know');
    const noRate = await refusal(
      readKeypoints2D({ path: openPoseFolder('no-rate', [[person(17, 0)]]) }, 'c', { imageSize }),
    );
    expect(noRate.message).toContain('give the frame rate');
    const video = { timestampsS: Float64Array.of(0, 0.1, 0.2), fps: 10, ...imageSize };
    const tooFew = await refusal(
      readKeypoints2D({ path: openPoseFolder('few', [[person(17, 0)]]) }, 'c', { video, imageSize }),
    );
    expect(tooFew.message).toContain('1 frames of keypoints, but the video has 3');
    const notJson = join(root, 'not-json');
    mkdirSync(notJson);
    writeFileSync(join(notJson, 'f0.json'), '{"people": [');
    expect((await refusal(readKeypoints2D({ path: notJson, fps: 30 }, 'c', { imageSize }))).message).toContain(
      'not valid JSON',
    );
  });

  it('reads our own keypoints JSON losslessly, with its frame times, and refuses a frame of the wrong length', async () => {
    const file = join(root, 'cam1.json');
    const names = ['Nose', 'RAnkle', 'SomethingElse'];
    writeFileSync(
      file,
      JSON.stringify({
        format: 'kinetrace-keypoints-2d',
        version: 1,
        keypointNames: names,
        imageSize: { width: 640, height: 480 },
        timestampsS: [0.5, 0.6],
        frames: [[1.25, 2.5, 0.75, null, null, 0, 9, 9, 1], null],
        otherPeople: [[null, [3, 4, 0.5, 5, 6, 0.5, 7, 8, 0.5]]],
      }),
    );
    const keypoints = await readKeypoints2D({ path: file }, 'cam1', { imageSize });
    expect([...keypoints.timestampsS]).toEqual([0.5, 0.6]);
    expect(keypoints.imageSize).toEqual({ width: 640, height: 480 });
    expect(at(keypoints, 0, 'Nose')).toEqual([1.25, 2.5, 0.75]);
    expect(at(keypoints, 0, 'RAnkle')).toEqual([NaN, NaN, 0]);
    expect([...keypoints.personFound]).toEqual([1, 0]);
    expect(keypoints.otherPeople![0][keypoints.keypointNames.length * 3]).toBe(3);

    writeFileSync(
      file,
      JSON.stringify({
        format: 'kinetrace-keypoints-2d',
        version: 1,
        keypointNames: names,
        imageSize,
        frames: [[1, 2]],
      }),
    );
    const error = await refusal(readKeypoints2D({ path: file, fps: 30 }, 'cam1', { imageSize }));
    expect(error.message).toContain(
      'frames.0: Each frame must hold x, y and confidence for every keypoint named in keypointNames: 9 values',
    );
  });
});
