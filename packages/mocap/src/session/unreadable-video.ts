import { ProcessingError } from '../pipeline/processing-error.ts';

/**
 * The user-facing error for videos that cannot be read, naming the cameras but not the files
 * (their paths are the server's business).
 */
export function unreadableVideoError(cameras: readonly string[]): ProcessingError {
  const which = cameras.length === 1 ? `camera ${cameras[0]}` : `cameras ${cameras.join(', ')}`;
  return new ProcessingError(
    'VIDEO_UNREADABLE',
    `The video of ${which} cannot be read. Check that it was uploaded completely and is a video such as MP4, MOV or WebM (H.264, HEVC, VP8 or VP9); otherwise record or import it again.`,
    [...cameras],
  );
}

/** Runs `work`, replacing a VIDEO_UNREADABLE error's message (which names files) with unreadableVideoError's. */
export async function withUnreadableVideosNamedByCamera<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ProcessingError && error.code === 'VIDEO_UNREADABLE')
      throw unreadableVideoError(error.cameras);
    throw error;
  }
}
