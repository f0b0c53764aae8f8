import { describe, expect, it } from 'vitest';
import { faceRegions } from '../../src/deidentify/face-regions.ts';
import { keypointIndex, VIDEO_KEYPOINTS, type VideoKeypoint } from '../../src/pose/keypoints.ts';
import { KEYPOINT_VALUES, type Keypoints2D } from '../../src/pose/types.ts';

const FPS = 60;
const FRAMES = 120;
const WIDTH = 1080;
const HEIGHT = 1920;
const layerSize = FRAMES * VIDEO_KEYPOINTS.length * KEYPOINT_VALUES;

/** A layer of keypoints with nobody in it (NaN, confidence 0), as the pose model leaves empty frames. */
const emptyLayer = () => new Float32Array(layerSize).fill(Number.NaN).map((value, i) => (i % 3 === 2 ? 0 : value));

function place(layer: Float32Array, frame: number, name: VideoKeypoint, x: number, y: number, confidence = 0.9) {
  const i = (frame * VIDEO_KEYPOINTS.length + keypointIndex(name)) * KEYPOINT_VALUES;
  layer.set([x, y, confidence], i);
}

/** A person standing 1000 px tall (eyes at y = 300, ankles at 1300), face seen, moving right 2 px a frame. */
function standing(layer: Float32Array, frame: number, { face = true } = {}) {
  const x = 500 + 2 * frame;
  if (face) {
    place(layer, frame, 'Nose', x, 310);
    place(layer, frame, 'LEye', x + 10, 300);
    place(layer, frame, 'REye', x - 10, 300);
  }
  place(layer, frame, 'LShoulder', x + 60, 420);
  place(layer, frame, 'RShoulder', x - 60, 420);
  place(layer, frame, 'LAnkle', x + 30, 1300);
  place(layer, frame, 'RAnkle', x - 30, 1300);
}

function keypoints(layers: Float32Array[]): Keypoints2D {
  return {
    keypointNames: VIDEO_KEYPOINTS,
    frameCount: FRAMES,
    fps: FPS,
    timestampsS: Float64Array.from({ length: FRAMES }, (_, f) => f / FPS),
    imageSize: { width: WIDTH, height: HEIGHT },
    data: layers[0],
    personFound: new Uint8Array(FRAMES).fill(1),
    otherPeople: layers.slice(1),
  };
}

describe('faceRegions', () => {
  it('puts a square over the whole head where the face keypoints are found, sized by the body when they span little', () => {
    const layer = emptyLayer();
    standing(layer, 0);
    const [region] = faceRegions(keypoints([layer]))[0];
    expect(region.centreX).toBeCloseTo(500, 5);
    expect(region.centreY).toBeCloseTo(303.3, 1);
    // Eyes to ankles 1000 px ≈ 0.897 H, so H ≈ 1115 px and the head (0.130 H) ≈ 145 px: the square is 2 heads a side.
    expect(2 * region.halfSidePx).toBeCloseTo((2 * 1000 * 0.13) / (0.936 - 0.039), 0);
  });

  it('covers frames without a found face with the nearest found face grown by how far it may have moved, up to a second away', () => {
    const layer = emptyLayer();
    for (let f = 0; f < 10; f++) standing(layer, f);
    for (let f = 10; f < 20; f++) standing(layer, f, { face: false }); // turned away
    for (let f = 20; f < 30; f++) standing(layer, f);
    const regions = faceRegions(keypoints([layer]));
    const found = regions[9][0];
    const headPx = found.halfSidePx; // the square is 2 head heights a side
    // Frame 12 is nearest frame 9 (3 frames), frame 17 nearest frame 20; each grows by 10 head heights a second apart.
    expect(regions[12][0]).toMatchObject({ centreX: found.centreX, centreY: found.centreY });
    expect(regions[12][0].halfSidePx).toBeCloseTo(found.halfSidePx + (headPx * 10 * 3) / FPS, 6);
    expect(regions[17][0].centreX).toBeCloseTo(regions[20][0].centreX, 5);
    expect(regions[17][0].halfSidePx).toBeGreaterThan(regions[20][0].halfSidePx);
    // Nobody after frame 30: the face is carried for a second (the pose model looks for people once a second), then no more.
    expect(regions[29 + FPS]).toHaveLength(1);
    expect(regions[30 + FPS]).toEqual([]);
  });

  it("blurs every other person's face too, and the whole frame wherever a person is seen whose face never is", () => {
    const subject = emptyLayer();
    const bystander = emptyLayer();
    const fromBehind = emptyLayer();
    for (let f = 0; f < FRAMES; f++) standing(subject, f);
    for (let f = 40; f < 50; f++) standing(bystander, f);
    for (let f = 60; f < 70; f++) standing(fromBehind, f, { face: false });
    const regions = faceRegions(keypoints([subject, bystander, fromBehind]));
    expect(regions[0]).toHaveLength(2); // the bystander's face is carried back a second from frame 40
    expect(regions[45]).toHaveLength(2);
    expect(regions[65]).toHaveLength(3);
    expect(regions[65][2]).toEqual({ centreX: WIDTH / 2, centreY: HEIGHT / 2, halfSidePx: HEIGHT / 2 });
    expect(regions[75]).toHaveLength(2);
  });
});
