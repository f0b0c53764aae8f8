import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import type { CameraModel } from '../../../../packages/mocap/src/camera/camera.ts';
import { ffmpegPath } from '../../../../packages/mocap/src/video/binaries.ts';
import {
  DEMO_FLOOR_BOARD,
  demoCamerasInBoardWorld,
  renderBoardView,
  writeStillY4m,
} from '../../../../packages/mocap/test/calibration/board-in-world.ts';
import {
  POSE2SIM_DEMO,
  POSE2SIM_QCA,
  POSE2SIM_SESSION,
} from '../../../../packages/mocap/test/calibration/pose2sim-reference.ts';
import { referencePath } from '../../../../packages/mocap/test/reference-data.ts';

/** The Pose2Sim demo's reference files the fake phones are made from. */
export const DEMO_PHONE_SOURCES = {
  calibration: POSE2SIM_QCA,
  /** 11 frames of the participant standing still, arms out. */
  neutral: (camera: string) => `${POSE2SIM_SESSION}/S00_P00_T00_StaticTrial/videos/${camera}.mp4`,
  /** 1.7 s of the participant balancing on a beam. */
  trial: (camera: string) => `${POSE2SIM_DEMO}/videos/${camera}.mp4`,
} as const;

/** What one demo camera's fake phone films at each wizard step: .y4m files its chromium plays as the camera. */
export interface DemoPhoneVideos {
  /** The camera that filmed the demo, in the world of the rendered board, at the phone videos' size. */
  camera: CameraModel;
  /** The board lying on the floor, rendered into this camera's view (a still). */
  calibration: string;
  neutral: string;
  trial: string;
}

/** A demo video at the phone size and frame rate, as the raw video chromium's fake camera plays in a loop. */
function phoneSizedY4m(source: string, camera: CameraModel, fps: number, target: string): void {
  const { width, height } = camera.imageSize;
  execFileSync(ffmpegPath(), [
    '-v',
    'error',
    '-y',
    '-i',
    source,
    '-vf',
    `scale=${width}:${height},fps=${fps}`,
    '-pix_fmt',
    'yuv420p',
    '-f',
    'yuv4mpegpipe',
    target,
  ]);
}

/**
 * The fake camera files of the demo's `cameras` (by name, in that order): the floor board rendered from
 * each camera's known calibration (DEMO_FLOOR_BOARD), then the camera's real neutral and trial videos,
 * all at the same phone size so that one lens calibration per phone fits every step.
 */
export async function makeDemoPhoneVideos(workDir: string, cameras: readonly string[]): Promise<DemoPhoneVideos[]> {
  const demoCameras = await demoCamerasInBoardWorld(referencePath(DEMO_PHONE_SOURCES.calibration));
  return cameras.map((name) => {
    const camera = demoCameras.find((candidate) => candidate.name === name);
    if (!camera) throw new Error(`The demo has no camera ${name}`);
    const videos: DemoPhoneVideos = {
      camera,
      calibration: join(workDir, `${camera.name}-calibration.y4m`),
      neutral: join(workDir, `${camera.name}-neutral.y4m`),
      trial: join(workDir, `${camera.name}-trial.y4m`),
    };
    writeStillY4m(renderBoardView(camera, DEMO_FLOOR_BOARD.board), camera.imageSize, videos.calibration);
    // The subject stands still for the neutral: 15 frames a second show it as well as 30, for half the pose work.
    phoneSizedY4m(referencePath(DEMO_PHONE_SOURCES.neutral(camera.name)), camera, 15, videos.neutral);
    phoneSizedY4m(referencePath(DEMO_PHONE_SOURCES.trial(camera.name)), camera, 30, videos.trial);
    return videos;
  });
}
