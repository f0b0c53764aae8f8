/**
 * Failures a user can act on, each with a stable `code` the web app can map to its own message and a
 * message that says what went wrong and what to try. They are never retried (packages/processing
 * user-errors.ts): the same videos fail the same way again.
 */
export type ProcessingErrorCode =
  | 'BOARD_NOT_FOUND'
  | 'TOO_FEW_CAMERAS'
  | 'NO_PERSON_FOUND'
  | 'VIDEO_UNREADABLE'
  | 'SYNC_NOT_FOUND'
  | 'CALIBRATION_MISSING'
  | 'INVALID_FOLDER'
  | 'KEYPOINTS_MISSING'
  | 'KEYPOINTS_UNREADABLE'
  | 'SUBJECT_OUT_OF_RANGE';

export class ProcessingError extends Error {
  override name = 'ProcessingError';
  constructor(
    readonly code: ProcessingErrorCode,
    message: string,
    /** The cameras concerned, when the problem is with particular cameras. */
    readonly cameras: string[] = [],
  ) {
    super(message);
  }
}

/** A keypoint a stage needed and did not have in enough frames. */
export interface MissingKeypoint {
  name: string;
  /** Frames of the trial in which it was seen (triangulated). */
  framesSeen: number;
  /** Where it was missing: [first, last] frame ranges, inclusive. */
  missingFrames: [number, number][];
}

/**
 * Keypoints the engine needs were not seen in enough frames (scaling needs a still stretch in which
 * every keypoint it measures is seen): which keypoints, in which frames, and once the session knows
 * it (process-neutral.ts), which cameras did not see them.
 */
export class KeypointsMissingError extends ProcessingError {
  override name = 'KeypointsMissingError';
  constructor(
    message: string,
    readonly keypoints: MissingKeypoint[],
    readonly frameCount: number,
    cameras: string[] = [],
  ) {
    super('KEYPOINTS_MISSING', message, cameras);
  }
}

/** Frame ranges as a person reads them: "3–6, 9". */
export function frameRangesText(ranges: readonly [number, number][]): string {
  return ranges.map(([first, last]) => (first === last ? `${first}` : `${first}–${last}`)).join(', ');
}
