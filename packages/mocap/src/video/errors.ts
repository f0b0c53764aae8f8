/** A file the user gave cannot be read as a video or image: names the file and says what to try. */
export class VideoReadError extends Error {
  override readonly name = 'VideoReadError';

  constructor(
    readonly path: string,
    reason: string,
    kind: 'video' | 'image' = 'video',
  ) {
    const formats =
      kind === 'video' ? 'a video such as MP4, MOV or WebM (H.264, HEVC, VP8 or VP9)' : 'an image such as JPEG or PNG';
    super(
      `Cannot read "${path}" as ${kind === 'video' ? 'a video' : 'an image'}: ${reason}. ` +
        `Check that the file exists, is complete (fully uploaded or copied) and is ${formats}.`,
    );
  }
}
