/**
 * A square, possibly rotated, region of an image that holds one person: what the landmark model
 * looks at. Pixels of the image the model runs on; rotationRad turns the region's "up" from the
 * image's up towards its right (clockwise on screen, y being down).
 */
export interface PoseRegion {
  centerX: number;
  centerY: number;
  sizePx: number;
  rotationRad: number;
}

/**
 * BlazePose enlarges the body circle's square by 1.25 so that limbs at full reach stay inside
 * (MediaPipe pose_landmark_by_roi / pose_detection_to_roi graphs: RectTransformation scale 1.25).
 */
export const REGION_ENLARGEMENT = 1.25;

/**
 * The region BlazePose derives from two alignment points: the body centre (mid-hips) and a point
 * on the circle around the body, above the head for an upright person. The square is twice the
 * circle's radius, enlarged, and turned so that the centre-to-top direction points up (MediaPipe
 * AlignmentPointsRectsCalculator with target angle 90 degrees).
 */
export function regionFromAlignmentPoints(centerX: number, centerY: number, topX: number, topY: number): PoseRegion {
  const radius = Math.hypot(topX - centerX, topY - centerY);
  const rotationRad = normaliseAngle(Math.PI / 2 - Math.atan2(-(topY - centerY), topX - centerX));
  return { centerX, centerY, sizePx: 2 * radius * REGION_ENLARGEMENT, rotationRad };
}

/**
 * The region turned by half a turn when its "up" points down the image. Phone videos are shown
 * upright (their rotation is applied when decoding), so a person upside down in one is a landmark
 * model that folded the body onto itself: its head-to-hips alignment points swapped ends, and the
 * region it hands the next frame asks the model to read the person upside down, where it folds
 * again. Read upright, the model finds the head at the top again.
 */
export function uprightRegion(region: PoseRegion): PoseRegion {
  if (Math.abs(region.rotationRad) <= Math.PI / 2) return region;
  return { ...region, rotationRad: region.rotationRad - Math.sign(region.rotationRad) * Math.PI };
}

/** The region covering a whole image, letterboxed into a square (what the detector looks at). */
export function wholeImageRegion(width: number, height: number): PoseRegion {
  return { centerX: width / 2, centerY: height / 2, sizePx: Math.max(width, height), rotationRad: 0 };
}

/**
 * The region expected at frame `targetFrame` from the regions found at two earlier frames: the
 * centre moves on at the same velocity, the size and rotation are the latest. This makes up for
 * the few frames between the latest finished frame and the one being dispatched to a worker.
 */
export function extrapolateRegion(
  earlier: { frame: number; region: PoseRegion },
  latest: { frame: number; region: PoseRegion },
  targetFrame: number,
): PoseRegion {
  const ratio = (targetFrame - latest.frame) / (latest.frame - earlier.frame);
  return {
    ...latest.region,
    centerX: latest.region.centerX + (latest.region.centerX - earlier.region.centerX) * ratio,
    centerY: latest.region.centerY + (latest.region.centerY - earlier.region.centerY) * ratio,
  };
}

/**
 * Where the detector looks for people: the whole image letterboxed into its square, and, for an
 * image far from square, overlapping squares of the short side along the long one. The detector
 * misses people who fill little of a letterboxed wide image (a person 30 % of a 16:9 frame's
 * height), and finds them in the squares, where they are larger.
 */
export function detectionAreas(width: number, height: number): PoseRegion[] {
  const areas = [wholeImageRegion(width, height)];
  const short = Math.min(width, height);
  const long = Math.max(width, height);
  if (long < 1.2 * short) return areas;
  // One square more than needed to cover the long side, so that neighbours overlap by half or more.
  const count = Math.ceil(long / short) + 1;
  for (let tile = 0; tile < count; tile++) {
    const along = short / 2 + (tile * (long - short)) / (count - 1);
    areas.push({
      centerX: width >= height ? along : width / 2,
      centerY: width >= height ? height / 2 : along,
      sizePx: short,
      rotationRad: 0,
    });
  }
  return areas;
}

/**
 * Maps a point of the region given in the region's own normalised coordinates (0..1 left to right
 * and top to bottom of the square as the model sees it) to image pixels. Writes into `out`.
 */
export function regionPointToImage(region: PoseRegion, u: number, v: number, out: Float64Array | number[]): void {
  const cos = Math.cos(region.rotationRad);
  const sin = Math.sin(region.rotationRad);
  const du = (u - 0.5) * region.sizePx;
  const dv = (v - 0.5) * region.sizePx;
  out[0] = region.centerX + du * cos - dv * sin;
  out[1] = region.centerY + du * sin + dv * cos;
}

function normaliseAngle(angleRad: number): number {
  return angleRad - 2 * Math.PI * Math.floor((angleRad + Math.PI) / (2 * Math.PI));
}
