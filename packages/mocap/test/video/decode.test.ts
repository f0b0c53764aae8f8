import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeFrames, decodeImage } from '../../src/video/decode.ts';
import { VideoReadError } from '../../src/video/errors.ts';
import { probeVideo } from '../../src/video/probe.ts';
import type { VideoFrame } from '../../src/video/types.ts';
import { describeWithData, referencePath } from '../reference-data.ts';
import { encoderAvailable, VideoFixtures } from './video-fixtures.ts';

async function collect(frames: AsyncIterable<VideoFrame>): Promise<VideoFrame[]> {
  const all: VideoFrame[] = [];
  for await (const frame of frames) all.push(frame);
  return all;
}

/** Mean absolute difference between `rotated` and `original` turned clockwise by quarter turns. */
function differenceAfterClockwiseTurn(original: VideoFrame, rotated: VideoFrame, rotationDeg: number): number {
  let sum = 0;
  for (let y = 0; y < rotated.height; y++) {
    for (let x = 0; x < rotated.width; x++) {
      let sourceX = x;
      let sourceY = y;
      if (rotationDeg === 90) [sourceX, sourceY] = [y, original.height - 1 - x];
      if (rotationDeg === 180) [sourceX, sourceY] = [original.width - 1 - x, original.height - 1 - y];
      if (rotationDeg === 270) [sourceX, sourceY] = [original.width - 1 - y, x];
      sum += Math.abs(rotated.data[y * rotated.width + x] - original.data[sourceY * original.width + sourceX]);
    }
  }
  return sum / (rotated.width * rotated.height);
}

describe('video decoding of the formats phones and browsers produce', () => {
  const fixtures = new VideoFixtures();
  afterAll(() => fixtures.remove());

  const formats = [
    { name: 'h264.mp4', codec: 'h264', args: ['-c:v', 'libx264', '-bf', '2'], encoder: 'libx264' },
    {
      name: 'hevc.mov',
      codec: 'hevc',
      args: ['-c:v', 'libx265', '-tag:v', 'hvc1', '-x265-params', 'log-level=error'],
      encoder: 'libx265',
    },
    // iPhones record 10-bit HEVC (HDR) by default.
    {
      name: 'hevc-10bit.mov',
      codec: 'hevc',
      args: ['-c:v', 'libx265', '-pix_fmt', 'yuv420p10le', '-tag:v', 'hvc1', '-x265-params', 'log-level=error'],
      encoder: 'libx265',
    },
    { name: 'vp9.webm', codec: 'vp9', args: ['-c:v', 'libvpx-vp9', '-deadline', 'realtime'], encoder: 'libvpx-vp9' },
    { name: 'vp8.webm', codec: 'vp8', args: ['-c:v', 'libvpx', '-deadline', 'realtime'], encoder: 'libvpx' },
  ];

  for (const format of formats) {
    it.skipIf(!encoderAvailable(format.encoder))(
      `probes and decodes every frame of ${format.name} with its timestamps`,
      async () => {
        const path = fixtures.encode(format.name, format.args, { width: 320, height: 240, fps: 30, frames: 12 });
        const info = await probeVideo(path);
        expect(info).toMatchObject({ codec: format.codec, width: 320, height: 240, rotationDeg: 0, frameCount: 12 });
        expect(info.fps).toBeCloseTo(30, 1);
        const frames = await collect(decodeFrames(path, { pixelFormat: 'rgb24' }));
        expect(frames.map((frame) => frame.index)).toEqual([...Array(12).keys()]);
        for (const frame of frames) {
          expect(frame.data.length).toBe(320 * 240 * 3);
          expect(frame.timestampS).toBeCloseTo(info.timestampsS[frame.index], 3);
          expect(frame.timestampS).toBeCloseTo(frame.index / 30, 2);
        }
      },
    );
  }

  it('turns portrait phone videos upright and reports the displayed size', async () => {
    const upright = fixtures.encode('upright.mp4', ['-c:v', 'libx264', '-crf', '10'], {
      width: 320,
      height: 240,
      frames: 3,
    });
    const [uprightFrame] = await collect(decodeFrames(upright, { pixelFormat: 'gray', endFrame: 1 }));
    for (const rotateTagDeg of [90, 180, 270]) {
      const path = fixtures.withRotation(upright, `rotated-${rotateTagDeg}.mp4`, rotateTagDeg);
      const info = await probeVideo(path);
      expect(info.rotationDeg).not.toBe(0);
      const quarterTurn = info.rotationDeg % 180 === 90;
      expect([info.width, info.height]).toEqual(quarterTurn ? [240, 320] : [320, 240]);
      expect([info.codedWidth, info.codedHeight]).toEqual([320, 240]);
      const [frame] = await collect(decodeFrames(path, { pixelFormat: 'gray', endFrame: 1 }));
      expect([frame.width, frame.height]).toEqual([info.width, info.height]);
      // The pixels are those of the upright clip turned by the rotation the probe reports.
      expect(differenceAfterClockwiseTurn(uprightFrame, frame, info.rotationDeg)).toBeLessThan(1);
    }
  });

  it('downscales to fit maxWidth x maxHeight keeping the aspect ratio, and never upscales', async () => {
    const path = fixtures.encode('large.mp4', ['-c:v', 'libx264'], { width: 640, height: 360, frames: 2 });
    const [small] = await collect(decodeFrames(path, { pixelFormat: 'gray', maxWidth: 256, maxHeight: 256 }));
    expect([small.width, small.height, small.data.length]).toEqual([256, 144, 256 * 144]);
    const [full] = await collect(decodeFrames(path, { pixelFormat: 'gray', maxWidth: 4000 }));
    expect([full.width, full.height]).toEqual([640, 360]);
  });

  it('selects frames by start, end and step with their own indices and timestamps', async () => {
    const path = fixtures.encode('select.webm', ['-c:v', 'libvpx-vp9', '-deadline', 'realtime'], {
      fps: 25,
      frames: 20,
    });
    const frames = await collect(decodeFrames(path, { pixelFormat: 'gray', startFrame: 3, endFrame: 15, step: 4 }));
    expect(frames.map((frame) => frame.index)).toEqual([3, 7, 11]);
    expect(frames.map((frame) => frame.timestampS)).toEqual([0.12, 0.28, 0.44].map((t) => expect.closeTo(t, 3)));
    // The range's last frame too, when asked (the pose model at a lower rate covers the video's end).
    const withLast = await collect(
      decodeFrames(path, { pixelFormat: 'gray', startFrame: 3, endFrame: 15, step: 4, withLastFrame: true }),
    );
    expect(withLast.map((frame) => [frame.index, frame.timestampS])).toEqual(
      [3, 7, 11, 14].map((index) => [index, expect.closeTo(index / 25, 3)]),
    );
    const onStep = await collect(decodeFrames(path, { pixelFormat: 'gray', step: 19, withLastFrame: true }));
    expect(onStep.map((frame) => frame.index)).toEqual([0, 19]);
  });

  it('keeps the real timestamps of a variable-rate video (no duplicated or dropped frames)', async () => {
    // 10 frames at 30 fps with a 0.2 s pause after the fifth: what a phone does when it stalls.
    const path = join(fixtures.folder, 'variable.mp4');
    fixtures.ffmpeg([
      '-f',
      'lavfi',
      '-i',
      'testsrc2=size=160x120:rate=30',
      '-frames:v',
      '10',
      '-vf',
      "setpts='(N/30+gte(N,5)*0.2)/TB'",
      '-vsync',
      'passthrough',
      '-c:v',
      'libx264',
      '-pix_fmt',
      'yuv420p',
      path,
    ]);
    const frames = await collect(decodeFrames(path, { pixelFormat: 'gray' }));
    expect(frames).toHaveLength(10);
    const expected = [...Array(10).keys()].map((n) => n / 30 + (n >= 5 ? 0.2 : 0));
    expect(frames.map((frame) => frame.timestampS)).toEqual(expected.map((t) => expect.closeTo(t, 2)));
    expect((await probeVideo(path)).fps).toBeCloseTo(9 / expected[9], 2);
  });

  it('stops ffmpeg when the consumer stops early', async () => {
    const path = fixtures.encode('long.mp4', ['-c:v', 'libx264'], { frames: 300 });
    let count = 0;
    for await (const _frame of decodeFrames(path, { pixelFormat: 'gray' })) if (++count === 2) break;
    expect(count).toBe(2);
  });

  it('names the file and says what to try when it is not a readable video', async () => {
    const notVideo = join(fixtures.folder, 'notes.mp4');
    writeFileSync(notVideo, 'this is not a video');
    await expect(probeVideo(notVideo)).rejects.toThrow(VideoReadError);
    await expect(probeVideo(notVideo)).rejects.toThrow(/notes\.mp4.*MP4, MOV or WebM/);
    await expect(collect(decodeFrames(join(fixtures.folder, 'missing.mp4')))).rejects.toThrow(
      /missing\.mp4.*does not exist/,
    );
    await expect(decodeImage(notVideo)).rejects.toThrow(/notes\.mp4.*as an image/);
  });
});

describeWithData(
  'video decoding of the real demo videos',
  ['pose2sim_demo/Pose2Sim/Demo_SinglePerson/videos/cam01.mp4'],
  () => {
    const videos = referencePath('pose2sim_demo/Pose2Sim/Demo_SinglePerson/videos');

    it('reads the 60 fps portrait demo camera with 100 frames, downscaled to the pose model size', async () => {
      const info = await probeVideo(join(videos, 'cam01.mp4'));
      expect(info).toMatchObject({ width: 1080, height: 1920, frameCount: 100, codec: 'h264' });
      expect(info.fps).toBeCloseTo(60, 3);
      const frames = await collect(
        decodeFrames(join(videos, 'cam01.mp4'), { info, pixelFormat: 'rgb24', maxWidth: 256, maxHeight: 256 }),
      );
      expect(frames).toHaveLength(100);
      expect([frames[0].width, frames[0].height]).toEqual([144, 256]);
      expect(frames[99].timestampS).toBeCloseTo(99 / 60, 3);
    });
  },
);

describeWithData('still image decoding', ['people_2d/mmpose@759b39c13f/tests/data/coco/000000000785.jpg'], () => {
  it('decodes a JPEG into one RGB frame', async () => {
    const image = await decodeImage(
      referencePath('people_2d/mmpose@759b39c13f/tests/data/coco/000000000785.jpg'),
      'rgb24',
    );
    expect([image.width, image.height, image.data.length]).toEqual([640, 425, 640 * 425 * 3]);
  });
});
