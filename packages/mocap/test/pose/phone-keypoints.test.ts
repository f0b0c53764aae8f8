import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readKeypoints2D } from '../../src/formats/keypoints-2d-files.ts';
import { VIDEO_KEYPOINTS } from '../../src/pose/keypoints.ts';
import {
  phoneCheckFrames,
  phoneKeypointsAgreement,
  phoneKeypointsDensity,
  placeOnVideoFrames,
} from '../../src/pose/phone-keypoints.ts';
import { KEYPOINT_VALUES } from '../../src/pose/types.ts';

const K = VIDEO_KEYPOINTS.length;

/** A standing person about `heightPx` tall whose keypoints run down the image from (x0, y0), all confident. */
function person(x0: number, y0: number, heightPx = 500): Float32Array {
  return Float32Array.from({ length: K * KEYPOINT_VALUES }, (_, i) => {
    const [k, axis] = [Math.floor(i / KEYPOINT_VALUES), i % KEYPOINT_VALUES];
    return axis === 0 ? x0 + (k % 3) * 40 : axis === 1 ? y0 + (k / (K - 1)) * heightPx : 0.9;
  });
}

/** Times from 0 every 1/rate s over `durationS`, leaving out [holeFromS, holeToS). */
const times = (rateHz: number, durationS: number, hole?: [number, number]) =>
  Float64Array.from(
    Array.from({ length: Math.floor(durationS * rateHz) }, (_, i) => i / rateHz).filter(
      (t) => !hole || t < hole[0] || t >= hole[1],
    ),
  );

describe("deciding whether a phone's keypoints serve", () => {
  it('takes a phone at twice the cutoff or more, and refuses one too sparse or with a long hole, saying why', () => {
    // Gait: 12 Hz cutoff, so 24 Hz needed.
    expect(phoneKeypointsDensity(times(30, 2), 2, 12)).toMatchObject({ neededHz: 24 });
    expect(phoneKeypointsDensity(times(30, 2), 2, 12).reason).toBeUndefined();
    expect(phoneKeypointsDensity(times(14, 2), 2, 12).reason).toBe('too sparse: 14 Hz, needs 24 Hz');
    // Enough frames on average, but nothing for half a second in the middle.
    const holed = phoneKeypointsDensity(times(60, 2, [1, 1.5]), 2, 12);
    expect(holed.achievedHz).toBeGreaterThan(24);
    expect(holed.reason).toMatch(/^a hole of 0\.5\d? s at 0\.98 s/);
    // A phone that started late leaves a hole at the start.
    expect(
      phoneKeypointsDensity(
        times(60, 2).filter((t) => t > 0.4),
        2,
        12,
      ).reason,
    ).toMatch(/^a hole of 0\.42 s at 0 s/);
  });

  it("passes keypoints a few pixels off the server's, and catches a 100 px shift or a person the server does not see", () => {
    const server = Array.from({ length: 8 }, (_, f) => person(200 + f * 10, 300));
    const jitter = (values: Float32Array, seed: number) =>
      values.map((v, i) => (i % KEYPOINT_VALUES === 2 ? v : v + 3 * Math.sin(seed * 31 + i)));
    const sameModel = phoneKeypointsAgreement(
      server.map((frame, f) => jitter(frame, f)),
      server,
    );
    expect(sameModel.reason).toBeUndefined();
    expect(sameModel.medianDistancePx).toBeLessThan(5);
    expect(sameModel.tolerancePx).toBeCloseTo(25, 0); // 5 % of a person 500 px tall

    const shifted = phoneKeypointsAgreement(
      server.map((frame) => frame.map((v, i) => (i % KEYPOINT_VALUES === 0 ? v + 100 : v))),
      server,
    );
    expect(shifted.medianDistancePx).toBeCloseTo(100, 3);
    expect(shifted.reason).toBe("disagreed with the server's check: median 100 px (at most 25 px)");

    const unseen = phoneKeypointsAgreement(server, [server[0], null, null, null, null, null, null, null]);
    expect(unseen.reason).toBe("the server's check found the person in 1 of 8 frames");
  });

  it('samples frames evenly among those where the phone found the person', () => {
    const found = Uint8Array.from({ length: 100 }, (_, f) => (f >= 20 ? 1 : 0));
    const sampled = phoneCheckFrames(found, 8);
    expect(sampled).toHaveLength(8);
    expect(sampled[0]).toBeGreaterThanOrEqual(20);
    expect(sampled.at(-1)).toBeGreaterThan(90);
    expect(new Set(sampled).size).toBe(8);
    expect(phoneCheckFrames(Uint8Array.of(0, 1, 0, 1), 8)).toEqual([1, 3]);
  });
});

describe("placing a phone's keypoints on the video's frames", () => {
  const root = mkdtempSync(join(tmpdir(), 'kinetrace-phone-keypoints-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('copies the frames the phone processed, interpolates between them, and leaves a long hole empty', () => {
    // The phone at 30 Hz on a 60 Hz video, with no frame between 0.5 s and 0.9 s.
    const phoneTimes = times(30, 1, [0.52, 0.9]);
    const data = new Float32Array(phoneTimes.length * K * KEYPOINT_VALUES);
    phoneTimes.forEach((t, f) => data.set(person(100 + 300 * t, 50), f * K * KEYPOINT_VALUES));
    const videoTimes = Float64Array.from({ length: 60 }, (_, f) => f / 60);
    const placed = placeOnVideoFrames(
      { timesS: phoneTimes, data, personFound: new Uint8Array(phoneTimes.length).fill(1) },
      K,
      videoTimes,
    );
    const noseX = (frame: number) => placed.data[frame * K * KEYPOINT_VALUES];
    expect(noseX(2)).toBeCloseTo(100 + 300 * (2 / 60), 3); // a phone frame
    expect(noseX(3)).toBeCloseTo(100 + 300 * (3 / 60), 3); // between two: interpolated
    expect(placed.personFound[3]).toBe(1);
    expect(placed.personFound[42]).toBe(0); // 0.7 s: inside the hole
    expect(Number.isNaN(noseX(42))).toBe(true);
    expect(placed.personFound[59]).toBe(0); // after the phone's last frame
  });

  it('reads a keypoints file with fewer frames than its video onto the video frames by their times', async () => {
    const path = join(root, 'phone.json');
    const phoneTimes = [0, 0.05, 0.1];
    writeFileSync(
      path,
      JSON.stringify({
        format: 'kinetrace-keypoints-2d',
        version: 1,
        keypointNames: [...VIDEO_KEYPOINTS],
        imageSize: { width: 1000, height: 2000 },
        timestampsS: phoneTimes,
        frames: phoneTimes.map((t) => Array.from(person(100 + 1000 * t, 50))),
      }),
    );
    // The video's own clock starts at 2 s: the file's times are from its first frame.
    const video = {
      timestampsS: Float64Array.from({ length: 5 }, (_, f) => 2 + f * 0.025),
      fps: 40,
      width: 1000,
      height: 2000,
    };
    const read = await readKeypoints2D({ path, fromPhone: true }, 'cam01', { video, imageSize: video });
    expect(read.frameCount).toBe(5);
    expect(read.timestampsS).toBe(video.timestampsS);
    expect(Array.from(read.personFound)).toEqual([1, 1, 1, 1, 1]);
    expect(read.data[1 * K * KEYPOINT_VALUES]).toBeCloseTo(125, 3); // 0.025 s, between the first two
    expect(Array.from(read.placedFrom!.timesS)).toEqual(phoneTimes);
  });
});
