import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Trial } from '@kinetrace/contracts';
import { ffmpegPath } from '@kinetrace/mocap/video/binaries';
import {
  DEMO_FLOOR_BOARD,
  demoCamerasInBoardWorld,
  renderBoardView,
} from '../../../../packages/mocap/test/calibration/board-in-world.ts';
import {
  POSE2SIM_DEMO,
  POSE2SIM_QCA,
  POSE2SIM_SESSION,
} from '../../../../packages/mocap/test/calibration/pose2sim-reference.ts';
import { referencePath } from '../../../../packages/mocap/test/reference-data.ts';
import { authHeader, type TestApp } from './test-app.ts';

/** The reference files the processing tests and benchmark are made from (skipped without them). */
export const DEMO_SOURCES = [
  POSE2SIM_QCA,
  `${POSE2SIM_DEMO}/videos/cam01.mp4`,
  `${POSE2SIM_SESSION}/S00_P00_T00_StaticTrial/videos/cam01.mp4`,
];
export const DEMO_CAMERAS = ['cam01', 'cam02', 'cam03', 'cam04'] as const;
/** The board the calibration videos show (DEMO_FLOOR_BOARD), as the session's set_metadata query. */
export const DEMO_BOARD_QUERY = `cb_rows=${DEMO_FLOOR_BOARD.board.rows}&cb_cols=${DEMO_FLOOR_BOARD.board.cols}&cb_square=${DEMO_FLOOR_BOARD.board.squareSizeMm}&cb_placement=${DEMO_FLOOR_BOARD.board.placement}`;

/** The demo's participant as a subject (POST /subjects/). */
export const DEMO_SUBJECT = {
  name: 'Demo participant',
  weight: 69,
  height: 1.72,
  birth_year: 1990,
  sex_at_birth: 'man',
  gender: 'man',
  characteristics: '',
  subject_tags: ['unimpaired'],
  terms: true,
};

/** One video per demo camera, named after the camera (`cam01.mp4`, ...), for one trial. */
export type TrialVideos = { name: string; path: string }[];

export interface DemoVideos {
  /** The floor board rendered from each camera's known pose: a still second at 30 fps. */
  calibration: TrialVideos;
  /** The participant standing still (the demo's static trial). */
  neutral: TrialVideos;
  /** The participant balancing, cut to `trialSeconds`. */
  trial: TrialVideos;
  /** The neutral's videos as calibration videos: no board anywhere. */
  noBoard: TrialVideos;
  /** An empty grey room: nobody to see. */
  nobody: TrialVideos;
  /** The trial with one camera's video cut mid-file: its header reads, its frames do not. */
  oneUnreadable: TrialVideos;
}

const { width, height } = { width: DEMO_FLOOR_BOARD.imageWidth, height: 960 };
const encodeArgs = [
  '-c:v',
  'libx264',
  '-preset',
  'veryfast',
  '-crf',
  '18',
  '-pix_fmt',
  'yuv420p',
  '-movflags',
  '+faststart',
];

function encodeStill(gray: Uint8Array, path: string): void {
  const encoded = spawnSync(
    ffmpegPath(),
    [
      '-v',
      'error',
      '-y',
      '-f',
      'rawvideo',
      '-pix_fmt',
      'gray',
      '-s',
      `${width}x${height}`,
      '-r',
      '30',
      '-i',
      'pipe:0',
      '-vf',
      'loop=loop=29:size=1:start=0',
      '-frames:v',
      '30',
      ...encodeArgs,
      path,
    ],
    { input: Buffer.from(gray.buffer, gray.byteOffset, gray.byteLength) },
  );
  if (encoded.status !== 0) throw new Error(`ffmpeg: ${encoded.stderr.toString()}`);
}

/** A demo video at the phone size the rendered boards have (544 x 960), optionally cut short. */
function phoneSized(source: string, path: string, seconds?: number): void {
  execFileSync(ffmpegPath(), [
    '-v',
    'error',
    '-y',
    '-i',
    source,
    ...(seconds ? ['-t', String(seconds)] : []),
    '-vf',
    `scale=${width}:${height}`,
    ...encodeArgs,
    path,
  ]);
}

/**
 * The demo trial's first `count` cameras looped to `seconds` (the demo's 1.7 s walk, repeated), at the
 * phone size of the other fixtures and the demo's 60 fps: a trial as long as a lab's, for benches.
 */
export function loopedDemoVideos(directory: string, seconds: number, count: number): TrialVideos {
  mkdirSync(directory, { recursive: true });
  return DEMO_CAMERAS.slice(0, count).map((camera) => {
    const video = { name: `${camera}.mp4`, path: join(directory, `${camera}.mp4`) };
    execFileSync(ffmpegPath(), [
      '-v',
      'error',
      '-y',
      '-stream_loop',
      '-1',
      '-i',
      referencePath(`${POSE2SIM_DEMO}/videos/${camera}.mp4`),
      '-t',
      String(seconds),
      // Video alone: a camera's audio track runs past its video (cam02's by 75 ms), and each loop would then
      // repeat its last frame to cover it, so that camera fell 4-5 frames further behind the others per loop.
      '-an',
      '-vf',
      `scale=${width}:${height}`,
      ...encodeArgs,
      video.path,
    ]);
    return video;
  });
}

/** The floor board rendered from each of the first `count` demo cameras' known poses, into `directory`. */
export async function makeBoardVideos(directory: string, count: number = DEMO_CAMERAS.length): Promise<TrialVideos> {
  mkdirSync(directory, { recursive: true });
  const cameras = (await demoCamerasInBoardWorld(referencePath(POSE2SIM_QCA))).slice(0, count);
  return cameras.map((camera) => {
    const video = { name: `${camera.name}.mp4`, path: join(directory, `${camera.name}.mp4`) };
    encodeStill(renderBoardView(camera, DEMO_FLOOR_BOARD.board), video.path);
    return video;
  });
}

/** Makes every fixture video under `directory` (a few seconds of ffmpeg). */
export async function makeDemoVideos(directory: string, trialSeconds = 0.75): Promise<DemoVideos> {
  const folder = (name: string) => {
    const path = join(directory, name);
    mkdirSync(path, { recursive: true });
    return path;
  };
  const cameras = await demoCamerasInBoardWorld(referencePath(POSE2SIM_QCA));
  const made: DemoVideos = { calibration: [], neutral: [], trial: [], noBoard: [], nobody: [], oneUnreadable: [] };
  made.calibration = await makeBoardVideos(folder('calibration'));
  for (const camera of cameras) {
    const file = `${camera.name}.mp4`;
    const neutral = join(folder('neutral'), file);
    phoneSized(referencePath(`${POSE2SIM_SESSION}/S00_P00_T00_StaticTrial/videos/${file}`), neutral);
    const trial = join(folder('trial'), file);
    phoneSized(referencePath(`${POSE2SIM_DEMO}/videos/${file}`), trial, trialSeconds);
    const nobody = join(folder('nobody'), file);
    encodeStill(new Uint8Array(width * height).fill(128), nobody);
    made.neutral.push({ name: file, path: neutral });
    made.trial.push({ name: file, path: trial });
    made.noBoard.push({ name: file, path: neutral });
    made.nobody.push({ name: file, path: nobody });
  }
  // The header (moov, first with +faststart) stays whole; most frames are gone (the upload's check refuses it).
  const broken = join(folder('one-unreadable'), made.trial[1].name);
  const bytes = readFileSync(made.trial[1].path);
  writeFileSync(broken, bytes.subarray(0, Math.floor(statSync(made.trial[1].path).size * 0.3)));
  made.oneUnreadable = made.trial.map((video, index) => (index === 1 ? { name: video.name, path: broken } : video));
  return made;
}

/** A multipart body for POST /sessions/{id}/import/: the trial's name and its videos. */
export function importForm(name: string, videos: TrialVideos): FormData {
  const form = new FormData();
  form.append('name', name);
  for (const video of videos) form.append('video', new Blob([new Uint8Array(readFileSync(video.path))]), video.name);
  return form;
}

/** Imports a trial's videos into the owner's session (POST /sessions/{id}/import/): the trial, queued. */
export async function importTrial(
  test: TestApp,
  token: string,
  sessionId: string,
  name: string,
  videos: TrialVideos,
): Promise<Trial> {
  const imported = await test.app.inject({
    method: 'POST',
    url: `/api/sessions/${sessionId}/import/`,
    headers: authHeader(token),
    payload: importForm(name, videos),
  });
  if (imported.statusCode !== 200) throw new Error(`import of ${name} failed: ${imported.statusCode} ${imported.body}`);
  return imported.json() as Trial;
}
