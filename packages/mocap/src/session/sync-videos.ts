import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { blurRegions, BlurScratch } from '../deidentify/blur-regions.ts';
import { faceRegions, wholeFrameRegion } from '../deidentify/face-regions.ts';
import type { Keypoints2D } from '../pose/types.ts';
import { decodeFrames } from '../video/decode.ts';
import { writeH264Mp4s } from '../video/encode.ts';
import { probeVideo } from '../video/probe.ts';
import type { VideoFrame } from '../video/types.ts';
import { fileSafe } from './file-names.ts';
import { RESULT_TAG } from './result-tags.ts';
import type { TrialClock } from './trial-clock.ts';
import type { OutputFile, SessionVideo } from './types.ts';

/** Height of the synchronised videos at most, px: enough to see the movement, quick to encode and load. */
const SYNC_VIDEO_MAX_HEIGHT_PX = 720;

/**
 * Two H.264 MP4s per camera on the trial's time base: frame f of every video is the camera's frame
 * nearest to the trial's frame f (same count, same constant rate, the reference camera's), so the
 * videos play in step with each other and with the .mot. One is the camera's picture as it is
 * (video-sync); the other has every face the pose model found blurred (video-sync-deidentified,
 * face-regions.ts), what readers of a session shared with de-identified videos get. Cameras left
 * out of the reconstruction (nobody seen) have no offset and get no video.
 */
export async function writeSyncVideos(
  clock: TrialClock,
  videos: readonly SessionVideo[],
  keypoints2D: readonly Keypoints2D[],
  trialName: string,
  outDir: string,
  onProgress?: (done: number, total: number) => void,
): Promise<OutputFile[]> {
  await mkdir(outDir, { recursive: true });
  const files: OutputFile[] = [];
  const total = videos.length;
  for (const [c, video] of videos.entries()) {
    const offsetS = clock.offsetsS[c];
    // Cameras given as keypoints alone have no video to show.
    if (offsetS === undefined || video.path === undefined) continue;
    const info = await probeVideo(video.path);
    const source = decodeFrames(video.path, { info, pixelFormat: 'rgb24', maxHeight: SYNC_VIDEO_MAX_HEIGHT_PX });
    const first = await source.next();
    if (first.done) continue;
    const targetsS = clock.timesS.map((t) => clock.startS + t - offsetS);
    const name = `${fileSafe(trialName)}_sync_${fileSafe(video.cameraName)}`;
    const synced = join(outDir, `${name}.mp4`);
    const deidentified = join(outDir, `${name}_deidentified.mp4`);
    const faces = faceRegions(keypoints2D[c]);
    // A frame the keypoints do not reach (keypoints from another tool, say) is blurred whole.
    const unknown = [wholeFrameRegion(keypoints2D[c].imageSize)];
    const scale = first.value.width / keypoints2D[c].imageSize.width;
    const scratch = new BlurScratch();
    // One decode feeds both encoders: decoding the phone's video costs about three times the encode.
    await writeH264Mp4s(
      framesAt(
        first.value,
        source,
        targetsS,
        (frame) => {
          const blurred = { ...frame, data: frame.data.slice() };
          blurRegions(blurred, faces[frame.index] ?? unknown, scale, scratch);
          return [frame.data, blurred.data];
        },
        // Within a camera too: its video is seconds of the trial's wait (issue 24 shows the percentage).
        (written) => onProgress?.(c + written / targetsS.length, total),
      ),
      { width: first.value.width, height: first.value.height, fps: clock.frameRateHz },
      [synced, deidentified],
    );
    files.push(
      { tag: RESULT_TAG.videoSync, path: synced, cameraName: video.cameraName },
      { tag: RESULT_TAG.videoSyncDeidentified, path: deidentified, cameraName: video.cameraName },
    );
    onProgress?.(c + 1, total);
  }
  return files;
}

/**
 * For each target time, the decoded frame nearest to it (frames repeat where the camera was
 * slower), as the pictures `render` makes of it, once per decoded frame; `onFrame` is told how many went before.
 */
async function* framesAt(
  first: VideoFrame,
  source: AsyncGenerator<VideoFrame>,
  targetsS: Float64Array,
  render: (frame: VideoFrame) => readonly Uint8Array[],
  onFrame: (written: number) => void,
): AsyncGenerator<readonly Uint8Array[]> {
  let current = first;
  let renderedIndex = -1;
  let pictures: readonly Uint8Array[] = [];
  let upcoming = await source.next();
  try {
    for (const [written, target] of targetsS.entries()) {
      onFrame(written);
      while (!upcoming.done && Math.abs(upcoming.value.timestampS - target) <= Math.abs(current.timestampS - target)) {
        current = upcoming.value;
        upcoming = await source.next();
      }
      if (renderedIndex !== current.index) [renderedIndex, pictures] = [current.index, render(current)];
      yield pictures;
    }
  } finally {
    await source.return(undefined);
  }
}
