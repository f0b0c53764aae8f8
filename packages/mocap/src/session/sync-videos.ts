import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeFrames } from '../video/decode.ts';
import { writeH264Mp4 } from '../video/encode.ts';
import { probeVideo } from '../video/probe.ts';
import type { VideoFrame } from '../video/types.ts';
import { fileSafe } from './file-names.ts';
import { RESULT_TAG } from './result-tags.ts';
import type { TrialClock } from './trial-clock.ts';
import type { OutputFile, SessionVideo } from './types.ts';

/** Height of the synchronised videos at most, px: enough to see the movement, quick to encode and load. */
const SYNC_VIDEO_MAX_HEIGHT_PX = 720;

/**
 * One H.264 MP4 per camera on the trial's time base: frame f of every video is the camera's frame
 * nearest to the trial's frame f (same count, same constant rate, the reference camera's), so the
 * videos play in step with each other and with the .mot. Cameras left out of the reconstruction
 * (nobody seen) have no offset and get no video.
 */
export async function writeSyncVideos(
  clock: TrialClock,
  videos: readonly SessionVideo[],
  trialName: string,
  outDir: string,
  onProgress?: (done: number, total: number) => void,
): Promise<OutputFile[]> {
  await mkdir(outDir, { recursive: true });
  const files: OutputFile[] = [];
  const total = videos.length;
  for (const [c, video] of videos.entries()) {
    const offsetS = clock.offsetsS[c];
    if (offsetS === undefined) continue;
    const info = await probeVideo(video.path);
    const source = decodeFrames(video.path, { info, pixelFormat: 'rgb24', maxHeight: SYNC_VIDEO_MAX_HEIGHT_PX });
    const first = await source.next();
    if (first.done) continue;
    const targetsS = clock.timesS.map((t) => clock.startS + t - offsetS);
    const path = join(outDir, `${fileSafe(trialName)}_sync_${fileSafe(video.cameraName)}.mp4`);
    await writeH264Mp4(
      framesAt(first.value, source, targetsS),
      { width: first.value.width, height: first.value.height, fps: clock.frameRateHz },
      path,
    );
    files.push({ tag: RESULT_TAG.videoSync, path, cameraName: video.cameraName });
    onProgress?.(c + 1, total);
  }
  return files;
}

/** For each target time, the decoded frame nearest to it (frames repeat where the camera was slower). */
async function* framesAt(
  first: VideoFrame,
  source: AsyncGenerator<VideoFrame>,
  targetsS: Float64Array,
): AsyncGenerator<Uint8Array> {
  let current = first;
  let upcoming = await source.next();
  try {
    for (const target of targetsS) {
      while (!upcoming.done && Math.abs(upcoming.value.timestampS - target) <= Math.abs(current.timestampS - target)) {
        current = upcoming.value;
        upcoming = await source.next();
      }
      yield current.data;
    }
  } finally {
    await source.return(undefined);
  }
}
