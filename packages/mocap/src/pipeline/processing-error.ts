/**
 * Failures a user can act on, each with a stable `code` the web app can map to its own message and a
 * message that says what went wrong and what to try.
 */
export type ProcessingErrorCode =
  | 'BOARD_NOT_FOUND'
  | 'TOO_FEW_CAMERAS'
  | 'NO_PERSON_FOUND'
  | 'VIDEO_UNREADABLE'
  | 'SYNC_NOT_FOUND'
  | 'CALIBRATION_MISSING'
  | 'INVALID_FOLDER';

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
