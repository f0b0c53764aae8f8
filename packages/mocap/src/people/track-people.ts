import type { FramePerson } from './people-in-frame.ts';

/**
 * The people found frame by frame, linked over time into tracks by where they are in 3D. Two bodies
 * cannot be in one place, so people who cross in a camera's image stay apart here. How far a person
 * is from where a track last saw someone is the median distance between the points both have (the
 * same body points compared, so a raised arm or a foot lost for a frame does not move it). In each frame
 * the closest pairs of (track, person) are linked first, each within the distance the person can
 * have moved since the track last saw them; a track whose two nearest people are both about as
 * close is not linked in that frame (it cannot tell them apart), and a track unseen for longer than
 * MAX_UNSEEN_S ends. Everyone left over starts a track.
 */
export interface PersonTrack {
  /** Per frame: index of the person in that frame's list, -1 where the track did not see them. */
  personAt: Int32Array;
  /** Per frame: 1 where the track could not tell two people apart (left unlinked). */
  unclear: Uint8Array;
  framesSeen: number;
}

/**
 * How far a person's centre may move between two frames: MAX_STEP_M, plus MAX_SPEED_M_S for each
 * second between them. The centre (median of the body's points) shifts by a few centimetres as
 * limbs move and points come and go; 5 m/s is a run, faster than any clinical movement (our choice).
 */
const MAX_STEP_M = 0.2;
const MAX_SPEED_M_S = 5;
/**
 * A track not seen for this long ends; a person seen again later is a new track (our choice: a
 * crossing hides someone from most cameras for a fraction of a second).
 */
const MAX_UNSEEN_S = 1;
/**
 * A track cannot tell two people apart when the second nearest is within this factor of the
 * nearest's distance (and within reach): it is not linked in that frame (our choice).
 */
const AMBIGUITY_FACTOR = 1.5;

export function trackPeople(people: readonly (readonly FramePerson[])[], frameRateHz: number): PersonTrack[] {
  const frameCount = people.length;
  const tracks: (PersonTrack & { lastFrame: number; lastPoints: Float64Array })[] = [];
  for (let frame = 0; frame < frameCount; frame++) {
    const here = people[frame];
    const active = tracks.filter((track) => (frame - track.lastFrame) / frameRateHz <= MAX_UNSEEN_S);
    const reach = (track: (typeof tracks)[number]) =>
      MAX_STEP_M + (MAX_SPEED_M_S * (frame - track.lastFrame)) / frameRateHz;
    const links: { track: (typeof tracks)[number]; person: number; distanceM: number }[] = [];
    // People near a track that cannot tell them apart: neither is linked, nor starts a track of their own.
    const contested = new Set<number>();
    for (const track of active) {
      const nearby = here
        .map((person, index) => ({ track, person: index, distanceM: distance(person, track.lastPoints) }))
        .filter((link) => link.distanceM <= reach(track))
        .sort((a, b) => a.distanceM - b.distanceM);
      if (nearby.length >= 2 && nearby[1].distanceM <= AMBIGUITY_FACTOR * nearby[0].distanceM) {
        track.unclear[frame] = 1;
        nearby.forEach((link) => contested.add(link.person));
        continue;
      }
      links.push(...nearby);
    }
    links.sort((a, b) => a.distanceM - b.distanceM);
    const linkedPeople = new Set<number>();
    const linkedTracks = new Set<(typeof tracks)[number]>();
    for (const link of links) {
      if (linkedPeople.has(link.person) || linkedTracks.has(link.track)) continue;
      linkedPeople.add(link.person);
      linkedTracks.add(link.track);
      see(link.track, frame, here[link.person].pointsM, link.person);
    }
    here.forEach((person, index) => {
      if (linkedPeople.has(index) || contested.has(index)) return;
      const track = {
        personAt: new Int32Array(frameCount).fill(-1),
        unclear: new Uint8Array(frameCount),
        framesSeen: 0,
        lastFrame: frame,
        lastPoints: person.pointsM,
      };
      tracks.push(track);
      see(track, frame, person.pointsM, index);
    });
  }
  return tracks.map(({ personAt, unclear, framesSeen }) => ({ personAt, unclear, framesSeen }));
}

function see(
  track: PersonTrack & { lastFrame: number; lastPoints: Float64Array },
  frame: number,
  pointsM: Float64Array,
  person: number,
): void {
  track.personAt[frame] = person;
  track.framesSeen++;
  track.lastFrame = frame;
  track.lastPoints = pointsM;
}

/** Median distance over the points both have; with fewer than MIN_COMMON_POINTS, between the centres. */
function distance(person: FramePerson, lastPointsM: Float64Array): number {
  const distances: number[] = [];
  const sum = [0, 0, 0];
  let seen = 0;
  for (let i = 0; i < lastPointsM.length; i += 3) {
    if (Number.isNaN(lastPointsM[i])) continue;
    for (let axis = 0; axis < 3; axis++) sum[axis] += lastPointsM[i + axis];
    seen++;
    const p = person.pointsM;
    if (!Number.isNaN(p[i]))
      distances.push(Math.hypot(p[i] - lastPointsM[i], p[i + 1] - lastPointsM[i + 1], p[i + 2] - lastPointsM[i + 2]));
  }
  if (distances.length >= MIN_COMMON_POINTS) return distances.sort((a, b) => a - b)[distances.length >> 1];
  const c = person.centreM;
  return Math.hypot(c[0] - sum[0] / seen, c[1] - sum[1] / seen, c[2] - sum[2] / seen);
}

/** Points two sightings must share to be compared point by point (our choice). */
const MIN_COMMON_POINTS = 3;
