/** No frame of a camera's video showed a person the model could follow. */
export class NoPersonFoundError extends Error {
  override readonly name = 'NoPersonFoundError';

  constructor(
    readonly cameraName: string,
    frameCount: number,
  ) {
    super(
      `No person found in ${cameraName} (none of its ${frameCount} frames). ` +
        'Check that the subject is in view of this camera with the whole body visible and well lit, ' +
        'that the video is the right one for this camera, and that it is not recorded sideways or upside down.',
    );
  }
}
