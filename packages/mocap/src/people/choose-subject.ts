import { solveLinear, symmetricEigen } from '../calibration/linalg.ts';
import { cameraCentreWorld, type CameraModel } from '../camera/camera.ts';
import type { FramePerson } from './people-in-frame.ts';
import type { PersonTrack } from './track-people.ts';

/**
 * Which of the people tracked is the subject. In the neutral trial, the person standing still (the
 * subject holds the neutral pose; someone walking about is not them); otherwise, or when several
 * stand still, the one nearest the centre of the calibrated volume, where the cameras point (the
 * phones are set up around the subject, a bystander stands aside). Only tracks seen for at least
 * MIN_SHARE of the longest one's frames are candidates, so a person passing through the middle for
 * a moment, or a stray match, is not taken for the subject. Returns the index of the track, or -1
 * when there is none.
 */
export function chooseSubjectTrack(
  tracks: readonly PersonTrack[],
  people: readonly (readonly FramePerson[])[],
  rule: { volumeCentreM: ArrayLike<number>; standingStill: boolean },
): number {
  const longest = Math.max(0, ...tracks.map((track) => track.framesSeen));
  const candidates = tracks.flatMap((track, index) =>
    track.framesSeen > 0 && track.framesSeen >= MIN_SHARE * longest ? [index] : [],
  );
  const still = rule.standingStill ? candidates.filter((index) => movementM(tracks[index], people) <= STILL_M) : [];
  const pool = still.length > 0 ? still : candidates;
  let best = -1;
  let bestDistanceM = Number.POSITIVE_INFINITY;
  for (const index of pool) {
    const distanceM = median(
      sightings(tracks[index], people).map(({ centreM: c }) =>
        Math.hypot(c[0] - rule.volumeCentreM[0], c[1] - rule.volumeCentreM[1], c[2] - rule.volumeCentreM[2]),
      ),
    );
    if (distanceM < bestDistanceM) [best, bestDistanceM] = [index, distanceM];
  }
  return best;
}

/**
 * A person stands still when their body points stay, in the median, within this distance of where
 * they are in the median over the trial: sway and keypoint noise stay within a few centimetres, a
 * step moves the feet 0.3 m and more (our choice).
 */
const STILL_M = 0.1;

/** How much a person moved over the trial: the median distance of their points from each point's median position. */
function movementM(track: PersonTrack, people: readonly (readonly FramePerson[])[]): number {
  const seen = sightings(track, people);
  const pointCount = seen[0].pointsM.length / 3;
  const distances: number[] = [];
  for (let p = 0; p < pointCount; p++) {
    const positions = seen
      .map((person) => person.pointsM.subarray(p * 3, p * 3 + 3))
      .filter((x) => !Number.isNaN(x[0]));
    if (positions.length === 0) continue;
    const middle = [0, 1, 2].map((axis) => median(positions.map((x) => x[axis])));
    for (const x of positions) distances.push(Math.hypot(x[0] - middle[0], x[1] - middle[1], x[2] - middle[2]));
  }
  return distances.length > 0 ? median(distances) : Number.POSITIVE_INFINITY;
}

function sightings(track: PersonTrack, people: readonly (readonly FramePerson[])[]): FramePerson[] {
  return Array.from(track.personAt).flatMap((person, frame) => (person >= 0 ? [people[frame][person]] : []));
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1];
}

/**
 * Tracks seen for less than this share of the longest track's frames are not the subject (our
 * choice: a stray match lasts a few frames; a subject lost for a while still has a good part of the
 * trial).
 */
const MIN_SHARE = 0.25;

/**
 * The centre of the calibrated volume: the point nearest to every camera's optical axis (least
 * squares). With axes that (nearly) do not converge, the point 2 m ahead of the cameras' mean
 * position along their mean direction.
 */
export function calibratedVolumeCentre(cameras: readonly CameraModel[]): Float64Array {
  // Σ (I − d dᵀ) x = Σ (I − d dᵀ) c over the cameras (c: centre, d: optical axis in the world).
  const normal = new Float64Array(9);
  const right = new Float64Array(3);
  const meanCentre = new Float64Array(3);
  const meanAxis = new Float64Array(3);
  for (const camera of cameras) {
    const centre = cameraCentreWorld(camera);
    const R = camera.rotationCameraFromWorld;
    const axis = [R[6], R[7], R[8]];
    for (let i = 0; i < 3; i++) {
      meanCentre[i] += centre[i] / cameras.length;
      meanAxis[i] += axis[i] / cameras.length;
      for (let j = 0; j < 3; j++) {
        const m = (i === j ? 1 : 0) - axis[i] * axis[j];
        normal[i * 3 + j] += m;
        right[i] += m * centre[j];
      }
    }
  }
  // Axes that (nearly) do not converge leave the normal matrix singular along them (our threshold:
  // for two cameras, axes less than 16 degrees apart, 1 - cos 16° = 0.04).
  const { values } = symmetricEigen(normal, 3);
  const solved = values[0] > 0.02 * cameras.length ? solveLinear(normal, right, 3) : null;
  if (solved) return Float64Array.from(solved);
  const length = Math.hypot(meanAxis[0], meanAxis[1], meanAxis[2]) || 1;
  return Float64Array.from([0, 1, 2], (i) => meanCentre[i] + (2 * meanAxis[i]) / length);
}
