import { isOffBody, linkLengthM, trialMedianLengthM } from '../filter/remove-segment-outliers.ts';
import { popCount, type PointSolver } from './point-solver.ts';

/**
 * The foot's keypoints held to one shape over the trial where two views alone place them. The
 * foot is one rigid body in the musculoskeletal model (calcn, with the toes on it), turning about
 * the ankle, so the heel and the big toe keep their distance to each other and, nearly, to the
 * ankle keypoint (the toes bending at push-off shorten the heel-to-toe distance by about 1 cm at
 * 40°, which the soft pull below, 10 mm, partly lets through). Two views see the foot small and
 * often end-on: a toe or heel detection wandering by 5-15 px in one view slides the point
 * centimetres along the other's line of sight, and the foot's length with it (on the Pose2Sim
 * demo's cam02+cam04, whose cam02 sees the feet from behind, the left heel-to-toe length fell to
 * 30-90 mm for 20 frames: 53 mm SD). Each foot keypoint triangulated from exactly two views is
 * solved again from them with its distances to the foot's other two keypoints pulled towards their
 * median over the trial (PointSolver.solveWithLengths): the views still place it, within their
 * noise, and the foot's shape picks the place among those. A point three or more views agree on
 * has its depth measured and is left as it is. A link off the body in a frame (isOffBody: a
 * mislabelled or wrong point) does not pull; the off-body check after triangulation removes it.
 */
export interface FootLink {
  /** Keypoint indices of the link's two ends. */
  from: number;
  to: number;
}

/** The links of each foot present among `keypointNames`: ankle-heel, ankle-big toe, heel-big toe. */
export function footLinks(keypointNames: readonly string[]): FootLink[] {
  return (['R', 'L'] as const).flatMap((side) =>
    (
      [
        ['Ankle', 'Heel'],
        ['Ankle', 'BigToe'],
        ['Heel', 'BigToe'],
      ] as const
    )
      .map(([a, b]) => ({ from: keypointNames.indexOf(`${side}${a}`), to: keypointNames.indexOf(`${side}${b}`) }))
      .filter((link) => link.from >= 0 && link.to >= 0),
  );
}

/**
 * A view's detection noise and a foot link's length noise: the balance of the two (our choice, on
 * the Pose2Sim demo's pairs against four cameras: the eight ankle angles' RMS differences summed
 * 88.7° without the hold and 78.4° with it, no hip, knee or ankle figure worse by more than 0.1°;
 * holding every foot point, 5 or 20 mm instead of 10 moved the 24 figures' sum by under 2°,
 * docs/pose.md).
 */
const PIXEL_SIGMA = 5;
const LENGTH_SIGMA_M = 0.01;
/**
 * Passes over a frame's foot keypoints, each moving its neighbours' targets, until none moves more
 * than SETTLED_M (our choice: on the demo's pairs, 3 passes left the 24 angle figures' sum at 203.6°,
 * 10 and 20 passes at 201.7° and 201.8°).
 */
const MAX_SWEEPS = 20;
const SETTLED_M = 1e-4;

/**
 * Re-solves, in place, the foot keypoints of `pointsWorldM` (frames × keypoints × 3) that two views
 * alone placed, from those views (`cameraMasks`, per point) and the links' trial-median lengths.
 */
export function holdFeetRigid(
  solver: PointSolver,
  pointsWorldM: Float64Array,
  cameraMasks: Uint32Array,
  frameCount: number,
  keypointCount: number,
  links: readonly FootLink[],
): void {
  const medians = links.map(({ from, to }) => trialMedianLengthM(pointsWorldM, frameCount, keypointCount, from, to));
  // Per foot keypoint, its links: the other end and the link's index.
  const footKeypoints = [...new Set(links.flatMap(({ from, to }) => [from, to]))].map((k) => ({
    k,
    links: links.flatMap(({ from, to }, l) => (from === k ? [{ other: to, l }] : to === k ? [{ other: from, l }] : [])),
  }));
  const point = new Float64Array(3);
  const linkEndsM = new Float64Array(3 * links.length);
  const linkLengthsM = new Float64Array(links.length);
  for (let frame = 0; frame < frameCount; frame++) {
    for (let sweep = 0, movedM = Number.POSITIVE_INFINITY; sweep < MAX_SWEEPS && movedM > SETTLED_M; sweep++) {
      movedM = 0;
      for (const foot of footKeypoints) {
        const observation = frame * keypointCount + foot.k;
        if (popCount(cameraMasks[observation]) !== 2) continue;
        let pulling = 0;
        for (const { other, l } of foot.links) {
          const value = linkLengthM(pointsWorldM, keypointCount, frame, foot.k, other);
          if (Number.isNaN(medians[l]) || Number.isNaN(value) || isOffBody(value, medians[l])) continue;
          const end = (frame * keypointCount + other) * 3;
          linkEndsM.set(pointsWorldM.subarray(end, end + 3), pulling * 3);
          linkLengthsM[pulling++] = medians[l];
        }
        if (pulling === 0) continue;
        const at = observation * 3;
        point.set(pointsWorldM.subarray(at, at + 3));
        solver.solveWithLengths(
          observation,
          cameraMasks[observation],
          point,
          linkEndsM,
          linkLengthsM,
          pulling,
          PIXEL_SIGMA,
          LENGTH_SIGMA_M,
        );
        if (!point.every(Number.isFinite)) continue;
        movedM = Math.max(
          movedM,
          Math.hypot(point[0] - pointsWorldM[at], point[1] - pointsWorldM[at + 1], point[2] - pointsWorldM[at + 2]),
        );
        pointsWorldM.set(point, at);
      }
    }
  }
}
