import { basename, extname } from 'node:path';
import { BoardNotFoundError } from '@kinetrace/mocap/calibration/camera-calibration';
import { MissingAugmenterInputError } from '@kinetrace/mocap/augmenter/marker-augmenter';
import { IkSetupError } from '@kinetrace/mocap/ik/ik-problem';
import { ProcessingError } from '@kinetrace/mocap/pipeline/processing-error';
import { NoPersonFoundError } from '@kinetrace/mocap/pose/errors';
import { ScalingError } from '@kinetrace/mocap/scaling/scale-model-to-subject';
import { StaticTrialError } from '@kinetrace/mocap/scaling/static-pose';
import { unreadableVideoError } from '@kinetrace/mocap/session/unreadable-video';
import type { SessionVideo } from '@kinetrace/mocap/session/types';
import { VideoReadError } from '@kinetrace/mocap/video/errors';
import { TrialInputError } from './trial-io.ts';

/**
 * A user error of the engine's thread (engine-thread.ts), its message made there by userMessageOf:
 * the engine's classes do not cross a thread boundary, this tells the parent it is the user's.
 */
export class EngineUserError extends Error {
  override name = 'EngineUserError';
}

/**
 * The failures a user can act on (other videos, another subject, other session settings): a retry
 * cannot help, so they are not retried and their message is shown. Every other error is ours
 * (retried, then a generic message). The engine decides which is which where it knows why, by the
 * class it throws: a ProcessingError with its code — a camera without the board, an unreadable
 * video, a person seen by fewer than two cameras (TOO_FEW_CAMERAS), keypoints scaling needs but
 * no still stretch shows (KEYPOINTS_MISSING, a KeypointsMissingError naming keypoints, frames and
 * cameras), a subject the model cannot be scaled to (SUBJECT_OUT_OF_RANGE) — or one of the other
 * classes listed here. (Errors about an operator's installed model or augmenter never reach it:
 * the engine falls back to its defaults and says so in main_settings.)
 */
const USER_ERRORS = [
  EngineUserError,
  ProcessingError,
  TrialInputError,
  BoardNotFoundError,
  NoPersonFoundError,
  ScalingError,
  StaticTrialError,
  MissingAugmenterInputError,
  IkSetupError,
] as const;

/**
 * The message to show for `error` when the user can act on it, else undefined (an internal
 * failure). Messages name cameras, never files: a video the engine could not read is named by
 * its camera, and any path left in a message is cut to its file name (the server's folders are
 * its own business, and what the tool said goes to the log only).
 */
export function userMessageOf(error: unknown, videos: readonly SessionVideo[] = []): string | undefined {
  if (error instanceof VideoReadError) {
    // A video the inputs do not list by that path: its file's name (the server names work copies by device).
    const camera =
      videos.find((video) => video.path === error.path)?.cameraName ?? basename(error.path, extname(error.path));
    return unreadableVideoError([camera]).message;
  }
  if (error instanceof ProcessingError && error.code === 'VIDEO_UNREADABLE' && error.cameras.length > 0)
    return unreadableVideoError(error.cameras).message;
  if (!USER_ERRORS.some((kind) => error instanceof kind)) return undefined;
  return withoutPaths((error as Error).message);
}

/** Absolute paths (POSIX or Windows, optionally quoted) cut to their last part. */
const ABSOLUTE_PATH = /(?<![\w.])(?:[A-Za-z]:\\|\/)(?:[^\s"'`/\\]+[/\\])+([^\s"'`/\\]*)/g;

export function withoutPaths(message: string): string {
  return message.replace(ABSOLUTE_PATH, (_path, last: string) => last || 'a folder');
}
