import { MAX_OTHER_PEOPLE } from '../pose/pose-model.ts';
import { KEYPOINT_VALUES } from '../pose/types.ts';
import { FORGET_LOST_PERSON_S } from '../pose/track-person.ts';

/**
 * Who is the subject in each frame of a camera's keypoints made by another tool, which lists the
 * people of each frame in no lasting order (OpenPose and rtmlib write them by score, frame by frame).
 * As our pose stage does (detect-pose.ts): the most prominent person (here the largest box around
 * their keypoints) at the start, then in each frame whoever is nearest where the subject last was;
 * after FORGET_LOST_PERSON_S without them, the most prominent again. The others are kept, largest
 * first, up to MAX_OTHER_PEOPLE, for reconstruction to pick the person the cameras agree on.
 */
export interface FollowedPeople {
  /** Per frame: the subject's index in that frame's list, -1 where nobody is. */
  subject: Int32Array;
  /** Per frame: the other people's indices, largest first. */
  others: number[][];
}

/** A person is where the subject was when their centres are less than this many subject box sizes apart (our choice). */
const SAME_PLACE_BOX_SIZES = 0.5;

interface Box {
  centreX: number;
  centreY: number;
  /** Diagonal, px. */
  size: number;
  area: number;
}

function boxOf(keypoints: Float32Array): Box | null {
  let [minX, minY, maxX, maxY] = [Infinity, Infinity, -Infinity, -Infinity];
  for (let i = 0; i < keypoints.length; i += KEYPOINT_VALUES) {
    if (!(keypoints[i + 2] > 0)) continue;
    [minX, maxX] = [Math.min(minX, keypoints[i]), Math.max(maxX, keypoints[i])];
    [minY, maxY] = [Math.min(minY, keypoints[i + 1]), Math.max(maxY, keypoints[i + 1])];
  }
  if (minX === Infinity) return null;
  const [width, height] = [maxX - minX, maxY - minY];
  return {
    centreX: (minX + maxX) / 2,
    centreY: (minY + maxY) / 2,
    size: Math.hypot(width, height),
    area: width * height,
  };
}

/** `people`: per frame, each person's keypoints (VIDEO_KEYPOINTS × [x, y, confidence]). */
export function followSubject2D(people: readonly (readonly Float32Array[])[], fps: number): FollowedPeople {
  const subject = new Int32Array(people.length).fill(-1);
  const others: number[][] = [];
  let last: { box: Box; frame: number } | null = null;
  people.forEach((frame, index) => {
    const boxes = frame.map(boxOf);
    const present = boxes.flatMap((box, person) => (box ? [{ box, person }] : []));
    present.sort((a, b) => b.box.area - a.box.area);
    const recent = last && (index - last.frame) / fps <= FORGET_LOST_PERSON_S ? last.box : null;
    const distance = (box: Box) =>
      recent ? Math.hypot(box.centreX - recent.centreX, box.centreY - recent.centreY) : 0;
    const candidates = recent
      ? present.filter(({ box }) => distance(box) < SAME_PLACE_BOX_SIZES * recent.size)
      : present;
    const chosen = recent
      ? candidates.reduce<(typeof present)[number] | undefined>(
          (best, candidate) => (best && distance(best.box) <= distance(candidate.box) ? best : candidate),
          undefined,
        )
      : candidates[0];
    if (chosen) {
      subject[index] = chosen.person;
      last = { box: chosen.box, frame: index };
    }
    others.push(
      present
        .filter(({ person }) => person !== chosen?.person)
        .slice(0, MAX_OTHER_PEOPLE)
        .map(({ person }) => person),
    );
  });
  return { subject, others };
}
