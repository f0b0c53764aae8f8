import * as tf from '@tensorflow/tfjs-core';
import type { GraphModel } from '@tensorflow/tfjs-converter';
import { regionFromAlignmentPoints, regionPointToImage, wholeImageRegion, type PoseRegion } from './region.ts';
import { sampleRegion, type RgbImage } from './region-sampler.ts';

/** BlazePose person detector input: 224 x 224 RGB in [-1, 1] (MediaPipe pose_detection graph). */
const DETECTOR_INPUT_PX = 224;
const DETECTOR_VALUE_RANGE = [-1, 1] as const;
/** MediaPipe pose_detection: min_score_thresh 0.5, non-max suppression at IoU 0.3. */
const MIN_DETECTION_SCORE = 0.5;
const MAX_OVERLAP_IOU = 0.3;

/** A detected person: the score and the region the landmark model should look at. */
export interface PersonDetection {
  score: number;
  region: PoseRegion;
}

/**
 * SSD anchor centres of the BlazePose detector (MediaPipe SsdAnchorsCalculator for pose detection:
 * 5 layers, strides 8, 16, 32, 32, 32, two anchors per cell and stride, fixed anchor size), as
 * (x, y) pairs normalised to the input.
 */
function detectorAnchors(): Float32Array {
  const strides = [8, 16, 32, 32, 32];
  const centres: number[] = [];
  for (let layer = 0; layer < strides.length;) {
    let anchorsPerCell = 0;
    let next = layer;
    while (next < strides.length && strides[next] === strides[layer]) {
      anchorsPerCell += 2;
      next++;
    }
    const cells = Math.ceil(DETECTOR_INPUT_PX / strides[layer]);
    for (let y = 0; y < cells; y++) {
      for (let x = 0; x < cells; x++) {
        for (let a = 0; a < anchorsPerCell; a++) centres.push((x + 0.5) / cells, (y + 0.5) / cells);
      }
    }
    layer = next;
  }
  return Float32Array.from(centres);
}

/** Runs the BlazePose detector and returns the people it finds. */
export class BlazePoseDetector {
  private readonly anchors = detectorAnchors();
  private readonly input = new Float32Array(DETECTOR_INPUT_PX * DETECTOR_INPUT_PX * 3);

  constructor(private readonly model: GraphModel) {}

  dispose(): void {
    this.model.dispose();
  }

  /**
   * People in any of the given areas of the image; a person found in several is kept once (the
   * detection with the highest score).
   */
  async detectInAreas(image: RgbImage, areas: readonly PoseRegion[]): Promise<PersonDetection[]> {
    const found: PersonDetection[] = [];
    for (const area of areas) found.push(...(await this.detect(image, area)));
    found.sort((a, b) => b.score - a.score);
    const distinct: PersonDetection[] = [];
    for (const detection of found) {
      if (!distinct.some((other) => samePerson(detection.region, other.region))) distinct.push(detection);
    }
    return distinct;
  }

  /** People in `area` of the image (default: all of it, letterboxed into the detector's square). */
  async detect(
    image: RgbImage,
    area: PoseRegion = wholeImageRegion(image.width, image.height),
  ): Promise<PersonDetection[]> {
    sampleRegion(image, area, DETECTOR_INPUT_PX, DETECTOR_VALUE_RANGE, this.input);
    const output = tf.tidy(() =>
      this.model.execute(tf.tensor4d(this.input, [1, DETECTOR_INPUT_PX, DETECTOR_INPUT_PX, 3])),
    ) as tf.Tensor;
    // Per anchor: score logit, box (cx, cy, w, h) and 4 keypoints (x, y), in input pixels from the anchor.
    const raw = (await output.data()) as Float32Array;
    output.dispose();
    const valuesPerAnchor = raw.length / (this.anchors.length / 2);
    const candidates: { score: number; box: [number, number, number, number]; region: PoseRegion }[] = [];
    const point = [0, 0];
    const top = [0, 0];
    for (let anchor = 0; anchor < this.anchors.length / 2; anchor++) {
      const base = anchor * valuesPerAnchor;
      const score = 1 / (1 + Math.exp(-raw[base]));
      if (score < MIN_DETECTION_SCORE) continue;
      const anchorX = this.anchors[2 * anchor];
      const anchorY = this.anchors[2 * anchor + 1];
      const at = (offset: number, anchorCoordinate: number) =>
        raw[base + offset] / DETECTOR_INPUT_PX + anchorCoordinate;
      const centerU = at(1, anchorX);
      const centerV = at(2, anchorY);
      const halfW = raw[base + 3] / DETECTOR_INPUT_PX / 2;
      const halfH = raw[base + 4] / DETECTOR_INPUT_PX / 2;
      // Keypoint 0: mid-hip centre; keypoint 1: the point on the body circle that sets size and rotation.
      regionPointToImage(area, at(5, anchorX), at(6, anchorY), point);
      regionPointToImage(area, at(7, anchorX), at(8, anchorY), top);
      candidates.push({
        score,
        box: [centerU - halfW, centerV - halfH, centerU + halfW, centerV + halfH],
        region: regionFromAlignmentPoints(point[0], point[1], top[0], top[1]),
      });
    }
    candidates.sort((a, b) => b.score - a.score);
    const kept: typeof candidates = [];
    for (const candidate of candidates) {
      if (kept.every((other) => intersectionOverUnion(candidate.box, other.box) < MAX_OVERLAP_IOU))
        kept.push(candidate);
    }
    return kept.map(({ score, region }) => ({ score, region }));
  }
}

/** Two regions hold the same person when their centres are closer than a third of the smaller one. */
export function samePerson(a: PoseRegion, b: PoseRegion): boolean {
  return Math.hypot(a.centerX - b.centerX, a.centerY - b.centerY) < Math.min(a.sizePx, b.sizePx) / 3;
}

function intersectionOverUnion(a: readonly number[], b: readonly number[]): number {
  const width = Math.min(a[2], b[2]) - Math.max(a[0], b[0]);
  const height = Math.min(a[3], b[3]) - Math.max(a[1], b[1]);
  if (width <= 0 || height <= 0) return 0;
  const intersection = width * height;
  return intersection / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - intersection);
}
