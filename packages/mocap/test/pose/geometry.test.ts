import { describe, expect, it } from 'vitest';
import { BLAZEPOSE_LANDMARK, videoKeypointsFromBlazePose } from '../../src/pose/blazepose-keypoints.ts';
import { keypointIndex, VIDEO_KEYPOINTS } from '../../src/pose/keypoints.ts';
import { rankPeople } from '../../src/pose/person-choice.ts';
import {
  detectionAreas,
  extrapolateRegion,
  REGION_ENLARGEMENT,
  regionFromAlignmentPoints,
  regionPointToImage,
  uprightRegion,
  type PoseRegion,
} from '../../src/pose/region.ts';
import { sampleRegion } from '../../src/pose/region-sampler.ts';

describe('pose regions', () => {
  it('makes an upright square twice the body circle, enlarged, from the alignment points', () => {
    const region = regionFromAlignmentPoints(100, 200, 100, 120);
    expect(region.rotationRad).toBeCloseTo(0, 12);
    expect(region.sizePx).toBeCloseTo(2 * 80 * REGION_ENLARGEMENT, 12);
    expect([region.centerX, region.centerY]).toEqual([100, 200]);
  });

  it('turns the region clockwise when the body leans to the right of the image', () => {
    const region = regionFromAlignmentPoints(0, 0, 10, -10);
    expect(region.rotationRad).toBeCloseTo(Math.PI / 4, 12);
    // The middle of the region's top edge lies along the body, towards the head.
    const top = [0, 0];
    regionPointToImage(region, 0.5, 0, top);
    expect(top[0]).toBeGreaterThan(0);
    expect(top[0]).toBeCloseTo(-top[1], 9);
  });

  it('turns a region that reads the person upside down by half a turn, and leaves a leaning one', () => {
    const degrees = (rotationDeg: number) =>
      (uprightRegion({ centerX: 5, centerY: 6, sizePx: 7, rotationRad: (rotationDeg * Math.PI) / 180 }).rotationRad *
        180) /
      Math.PI;
    expect(degrees(172)).toBeCloseTo(-8, 9);
    expect(degrees(-172)).toBeCloseTo(8, 9);
    expect(degrees(30)).toBeCloseTo(30, 9);
    expect(degrees(-89)).toBeCloseTo(-89, 9);
    // A folded pose's alignment points (the "top" below the hips) give such a region.
    const folded = uprightRegion(regionFromAlignmentPoints(100, 200, 104, 280));
    expect(Math.abs(folded.rotationRad)).toBeLessThan(Math.PI / 2);
    expect([folded.centerX, folded.centerY, folded.sizePx]).toEqual([
      100,
      200,
      regionFromAlignmentPoints(100, 200, 104, 280).sizePx,
    ]);
  });

  it('samples the image exactly where keypoints are mapped back, whatever the rotation', () => {
    // A linear image (red = 2x + 3y + 1) is reproduced exactly by bilinear sampling.
    const width = 40;
    const height = 30;
    const data = new Uint8Array(width * height * 3);
    for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) data[(y * width + x) * 3] = 2 * x + 3 * y + 1;
    const outputPx = 8;
    const out = new Float32Array(outputPx * outputPx * 3);
    for (const rotationRad of [0, 0.3, Math.PI / 2, -2.5]) {
      const region: PoseRegion = { centerX: 20, centerY: 15, sizePx: 16, rotationRad };
      sampleRegion({ width, height, data }, region, outputPx, [0, 255], out);
      const point = [0, 0];
      for (const [row, column] of [
        [0, 0],
        [3, 5],
        [7, 7],
        [6, 1],
      ]) {
        regionPointToImage(region, (column + 0.5) / outputPx, (row + 0.5) / outputPx, point);
        // Image pixel (i, j) has its centre at (i + 0.5, j + 0.5).
        const expected = 2 * (point[0] - 0.5) + 3 * (point[1] - 0.5) + 1;
        expect(out[(row * outputPx + column) * 3]).toBeCloseTo(expected, 3);
      }
    }
  });

  it('moves a region on at the velocity of the two latest frames', () => {
    const at = (x: number): PoseRegion => ({ centerX: x, centerY: 50, sizePx: 100, rotationRad: 0 });
    const predicted = extrapolateRegion({ frame: 10, region: at(100) }, { frame: 12, region: at(110) }, 14);
    expect(predicted.centerX).toBeCloseTo(120, 12);
    expect(predicted.centerY).toBe(50);
  });

  it('looks for people in the whole image and in overlapping squares along a wide one', () => {
    expect(detectionAreas(500, 480)).toHaveLength(1);
    const areas = detectionAreas(1920, 1080);
    expect(areas[0]).toMatchObject({ centerX: 960, centerY: 540, sizePx: 1920 });
    const squares = areas.slice(1);
    expect(squares.length).toBeGreaterThanOrEqual(3);
    expect(squares[0].centerX - squares[0].sizePx / 2).toBe(0);
    expect(squares.at(-1)!.centerX + squares.at(-1)!.sizePx / 2).toBe(1920);
    for (let i = 1; i < squares.length; i++)
      expect(squares[i].centerX - squares[i - 1].centerX).toBeLessThanOrEqual(1080 / 2);
    const portrait = detectionAreas(1080, 1920).slice(1);
    expect(portrait.every((square) => square.centerX === 540 && square.sizePx === 1080)).toBe(true);
  });
});

describe('BlazePose landmarks as video keypoints', () => {
  it('takes Neck and midHip as midpoints with the lower confidence, and BigToe from the foot index', () => {
    const landmarkCount = 39;
    const xy = new Float64Array(landmarkCount * 2);
    const confidence = new Float64Array(landmarkCount).fill(0.9);
    for (let landmark = 0; landmark < landmarkCount; landmark++)
      [xy[2 * landmark], xy[2 * landmark + 1]] = [landmark, 100 + landmark];
    confidence[BLAZEPOSE_LANDMARK.rightShoulder] = 0.3;
    const out = new Float32Array(VIDEO_KEYPOINTS.length * 3);
    videoKeypointsFromBlazePose(xy, confidence, out);
    const at = (name: (typeof VIDEO_KEYPOINTS)[number]) =>
      Array.from(out.subarray(3 * keypointIndex(name), 3 * keypointIndex(name) + 3));
    expect(at('Neck')).toEqual([11.5, 111.5, expect.closeTo(0.3, 6)]);
    expect(at('midHip')).toEqual([23.5, 123.5, expect.closeTo(0.9, 6)]);
    expect(at('RBigToe')).toEqual([32, 132, expect.closeTo(0.9, 6)]);
    expect(at('LHeel')).toEqual([29, 129, expect.closeTo(0.9, 6)]);
    expect(at('RWrist')).toEqual([16, 116, expect.closeTo(0.9, 6)]);
  });
});

describe('choosing the subject among detected people', () => {
  const person = (name: string, centerX: number, centerY: number, sizePx: number) => ({
    name,
    region: { centerX, centerY, sizePx, rotationRad: 0 },
  });

  it('takes the large, central person when nobody is tracked yet', () => {
    const ranked = rankPeople(
      [person('small', 500, 300, 150), person('large off-centre', 150, 300, 400), person('large', 520, 330, 420)],
      null,
      1000,
      600,
    );
    expect(ranked.map((p) => p.name)).toEqual(['large', 'large off-centre', 'small']);
  });

  it('after a loss, takes only someone where the tracked person was, however prominent the others', () => {
    const wasHere = { centerX: 200, centerY: 300, sizePx: 300, rotationRad: 0 };
    const ranked = rankPeople(
      [person('bystander', 700, 300, 500), person('subject', 260, 310, 280)],
      wasHere,
      1000,
      600,
    );
    expect(ranked.map((p) => p.name)).toEqual(['subject']);
    expect(rankPeople([person('bystander', 700, 300, 500)], wasHere, 1000, 600)).toEqual([]);
  });
});
