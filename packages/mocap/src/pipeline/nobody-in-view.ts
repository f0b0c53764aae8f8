import { ProcessingError } from './processing-error.ts';

/**
 * How long the pose stage looks for a person before it gives up on a trial nobody is in: the first
 * half of each camera's video, and at most this many seconds (our choice). A subject in view of no
 * camera for that long leaves half a short trial, or five seconds of a long one, with nothing to
 * reconstruct: the wizard's neutral (4 s) gives up after 2 s instead of detecting every frame of
 * every camera, a long movement trial after 5 s. One camera that finds the person keeps every
 * camera going to the end: the subject may walk into the others' views later.
 */
const PERSON_SEARCH_MAX_S = 5;

/** The frames of a camera's video in which a person must show up for the trial to go on (at least one). */
export function personSearchFrames(frameCount: number, fps: number): number {
  const half = Math.ceil(frameCount / 2);
  return Math.max(1, fps > 0 ? Math.min(half, Math.round(PERSON_SEARCH_MAX_S * fps)) : half);
}

/** One camera as the watch sees it: its name, frame rate and how many of its first frames to search. */
export interface SearchedCamera {
  name: string;
  fps: number;
  searchFrames: number;
}

/**
 * Follows each camera's pose results, frame by frame in order, and calls `onNobody` (once) with a
 * NO_PERSON_FOUND error as soon as every camera has gone through its search frames without finding
 * anyone: the pose stage then stops instead of going through the rest of the videos.
 */
export class NobodyInViewWatch {
  private readonly state: ('searching' | 'seen' | 'nobody')[];

  constructor(
    private readonly cameras: readonly SearchedCamera[],
    private readonly onNobody: (error: ProcessingError) => void,
  ) {
    this.state = cameras.map(() => 'searching');
  }

  /** Camera `camera`'s frame `frame` (0-based, in order) was processed; `personFound` as the pose stage says. */
  frameResult(camera: number, frame: number, personFound: boolean): void {
    if (this.state[camera] !== 'searching') return;
    if (personFound) this.state[camera] = 'seen';
    else if (frame + 1 >= this.cameras[camera].searchFrames) {
      this.state[camera] = 'nobody';
      if (this.state.every((state) => state === 'nobody')) {
        // What every camera went through (keypoints given without frame times have no seconds to tell).
        const searchedS = Math.min(
          ...this.cameras.filter((one) => one.fps > 0).map((one) => one.searchFrames / one.fps),
        );
        this.onNobody(
          nobodyInViewError(
            this.cameras.map((one) => one.name),
            Number.isFinite(searchedS) ? searchedS : undefined,
          ),
        );
      }
    }
  }
}

/**
 * No camera found a person: in the first `searchedS` seconds of each video (the pose stage stopped
 * there), or in the whole videos when not given.
 */
export function nobodyInViewError(cameraNames: readonly string[], searchedS?: number): ProcessingError {
  const where = `${cameraNames.length === 1 ? 'the video of camera' : 'the videos of cameras'} ${cameraNames.join(', ')}`;
  return new ProcessingError(
    'NO_PERSON_FOUND',
    `No person was found in ${searchedS === undefined ? where : `the first ${searchedS.toFixed(1)} s of ${where}`}. ` +
      'Check that the subject is in view of every camera from the start of the recording, the whole body from head ' +
      'to feet and well lit, and that each phone films the capture area (not the floor, a wall or the ceiling); ' +
      'then record the trial again.',
    [...cameraNames],
  );
}
