/**
 * A checkerboard placed in a known world and rendered into the views of known cameras: the truth
 * behind the rendered-board calibration tests (engine and browser). The board is placed so that the
 * world frame the app builds from it (extrinsics.ts: origin at corner 0, y up, x towards the cameras)
 * is the given lab world moved to the board's corner 0, with the same axes; the truth cameras are the
 * lab cameras expressed in that board world.
 */
import { spawnSync } from 'node:child_process';
import { type CameraModel, cameraCentreWorld } from '../../src/camera/camera.ts';
import { readCameraFile } from '../../src/camera/formats/index.ts';
import type { BoardSpec } from '../../src/calibration/camera-calibration.ts';
import { multiply3 } from '../../src/calibration/linalg.ts';
import { ffmpegPath } from '../../src/video/binaries.ts';
import { lookAt, renderBoard, type BoardSpec as RenderedBoard } from './synthetic-board.ts';

/**
 * The Pose2Sim demo lab (Calib.qca.txt, world y up, floor at y = 0) with a board lying on the floor:
 * 4 x 5 inner corners of 150 mm (a 0.75 x 0.9 m floor board), corner 0 at (−0.3, 0, −0.3) m, where all
 * four cameras see it whole, at 544 x 960 (half the demo's 1088 x 1920, a phone-sized video).
 */
export const DEMO_FLOOR_BOARD = {
  board: { rows: 4, cols: 5, squareSizeMm: 150, placement: 'Lying' },
  originLabM: [-0.3, 0, -0.3],
  imageWidth: 544,
} as const satisfies { board: BoardSpec; originLabM: readonly number[]; imageWidth: number };

/**
 * The demo's cameras as the rendered boards show them: Calib.qca.txt read with its raw distortion (which
 * matches a lens calibration of the demo's own board images, packages/mocap/docs/calibration.md), in the board's world,
 * at the phone-sized width.
 */
export async function demoCamerasInBoardWorld(qcaPath: string): Promise<CameraModel[]> {
  const lab = await readCameraFile(qcaPath, { qualisys: { distortion: 'raw' } });
  return camerasInBoardWorld(lab, DEMO_FLOOR_BOARD.originLabM).map((camera) =>
    resizeCamera(camera, DEMO_FLOOR_BOARD.imageWidth),
  );
}

/**
 * The board's axes in the world (columns X_B, Y_B, Z_B; row-major), for which extrinsics.ts's
 * boardToWorldAxes gives back the world's own axes:
 * - Lying: X_B along −z, Y_B along +x, Z_B down into the floor (x = Y_B, y = −Z_B, z = −X_B);
 * - Perpendicular: an upright board facing +x, X_B along −z, Y_B down, Z_B along −x (away from the cameras).
 */
export const WORLD_FROM_BOARD: Record<BoardSpec['placement'], number[]> = {
  Lying: [0, 1, 0, 0, 0, -1, -1, 0, 0],
  Perpendicular: [0, 0, -1, 0, -1, 0, -1, 0, 0],
};

/**
 * The synthetic scene of the engine's calibration tests: a 4 x 7 board of 80 mm squares, its origin
 * corner at the world origin, seen by 1280 x 720 cameras of 1000 px focal length looking at its centre.
 */
export const SCENE_BOARD = {
  rows: 4,
  cols: 7,
  squareSizeMm: 80,
  placement: 'Perpendicular',
} as const satisfies BoardSpec;
export const SCENE_IMAGE_SIZE = { width: 1280, height: 720 };
/** The scene cameras' intrinsics, the principal point a few pixels off the image centre. */
export const SCENE_K = [1000, 0, 652.3, 0, 1000, 355.1, 0, 0, 1];
/** SCENE_BOARD as synthetic-board.ts renders it. */
export const SCENE_BOARD_RENDERED: RenderedBoard = {
  rows: SCENE_BOARD.rows,
  cols: SCENE_BOARD.cols,
  squareM: SCENE_BOARD.squareSizeMm / 1000,
};

/** The centre of SCENE_BOARD in the world, its axes the columns of `worldFromBoard` (the upright board by default). */
export function sceneBoardCentre(worldFromBoard = WORLD_FROM_BOARD.Perpendicular): number[] {
  const { rows, cols, squareM } = SCENE_BOARD_RENDERED;
  const centreInBoard = [((cols - 1) * squareM) / 2, ((rows - 1) * squareM) / 2];
  return [0, 1, 2].map((i) => worldFromBoard[i * 3] * centreInBoard[0] + worldFromBoard[i * 3 + 1] * centreInBoard[1]);
}

/**
 * A scene camera at `cameraCentre` (world metres) looking at the centre of SCENE_BOARD, whose axes in
 * the world are the columns of `worldFromBoard` (the upright board by default): the camera in the
 * world, and as the board sees it (board origin = world origin, so R_CB = R_CW · R_WB, same t), the
 * view renderBoard draws.
 */
export function boardScene(
  cameraCentre: readonly number[],
  {
    worldFromBoard = WORLD_FROM_BOARD.Perpendicular,
    rollDeg = 0,
    name = 'cam',
    intrinsics = SCENE_K,
    distortion = [0, 0, 0, 0, 0],
  }: {
    worldFromBoard?: number[];
    rollDeg?: number;
    name?: string;
    intrinsics?: number[];
    distortion?: number[];
  } = {},
): { world: CameraModel; boardView: CameraModel } {
  const { R, t } = lookAt(cameraCentre, sceneBoardCentre(worldFromBoard), rollDeg);
  const base = {
    name,
    imageSize: SCENE_IMAGE_SIZE,
    intrinsics: Float64Array.from(intrinsics),
    distortion: Float64Array.from(distortion),
    translationCameraFromWorldM: Float64Array.from(t),
  };
  return {
    world: { ...base, rotationCameraFromWorld: Float64Array.from(R) },
    boardView: { ...base, rotationCameraFromWorld: Float64Array.from(multiply3(R, worldFromBoard)) },
  };
}

/** The lab cameras in the world the board defines: same axes, origin at the board's corner 0 (`boardOriginLabM`). */
export function camerasInBoardWorld(labCameras: CameraModel[], boardOriginLabM: readonly number[]): CameraModel[] {
  return labCameras.map((camera) => {
    const R = camera.rotationCameraFromWorld;
    const t = camera.translationCameraFromWorldM;
    // p_lab = p_board + origin, so p_camera = R p_board + (R origin + t).
    const shifted = [0, 1, 2].map(
      (i) =>
        R[i * 3] * boardOriginLabM[0] + R[i * 3 + 1] * boardOriginLabM[1] + R[i * 3 + 2] * boardOriginLabM[2] + t[i],
    );
    return { ...camera, translationCameraFromWorldM: Float64Array.from(shifted) };
  });
}

/**
 * The same camera at another image width (a phone-sized video of the same view): focal lengths and
 * principal point scale with the image, pixel centres at integer coordinates (u' = s (u + ½) − ½);
 * the distortion, on normalised coordinates, does not change.
 */
export function resizeCamera(camera: CameraModel, width: number): CameraModel {
  const scale = width / camera.imageSize.width;
  const height = camera.imageSize.height * scale;
  if (!Number.isInteger(height))
    throw new Error(
      `${camera.name}: width ${width} does not keep the ${camera.imageSize.width} x ${camera.imageSize.height} aspect in whole pixels`,
    );
  const K = camera.intrinsics;
  return {
    ...camera,
    imageSize: { width, height },
    intrinsics: Float64Array.from([
      K[0] * scale,
      K[1] * scale,
      scale * (K[2] + 0.5) - 0.5,
      0,
      K[4] * scale,
      scale * (K[5] + 0.5) - 0.5,
      0,
      0,
      1,
    ]),
  };
}

/**
 * The board as `camera` (in the board's world) sees it: gray pixels at the camera's image size, the
 * board with a white margin of one square on a plain mid-grey background, anti-aliased by supersampling.
 */
export function renderBoardView(camera: CameraModel, board: BoardSpec): Uint8Array {
  const boardView: CameraModel = {
    ...camera,
    rotationCameraFromWorld: Float64Array.from(
      multiply3(camera.rotationCameraFromWorld, WORLD_FROM_BOARD[board.placement]),
    ),
  };
  return renderBoard(
    boardView,
    { rows: board.rows, cols: board.cols, squareM: board.squareSizeMm / 1000, margin: 1 },
    { supersample: 3, background: 110 },
  ).gray;
}

/**
 * Writes a still gray image as a raw YUV 4:2:0 video (.y4m, what chromium's fake camera plays in a
 * loop) of `seconds` at 30 frames a second.
 */
export function writeStillY4m(
  gray: Uint8Array,
  size: { width: number; height: number },
  path: string,
  seconds = 1,
): void {
  const frames = Math.round(seconds * 30);
  encodeGray([gray], size, path, {
    fps: 30,
    output: [
      '-vf',
      `loop=loop=${frames - 1}:size=1:start=0`,
      '-frames:v',
      String(frames),
      '-pix_fmt',
      'yuv420p',
      '-f',
      'yuv4mpegpipe',
    ],
  });
}

/** Gray frames as an H.264 video at 20 frames a second, the way a phone's calibration trial comes in. */
export function writeGrayVideo(
  frames: readonly Uint8Array[],
  size: { width: number; height: number },
  path: string,
): void {
  encodeGray(frames, size, path, { fps: 20, output: ['-c:v', 'libx264', '-crf', '14', '-pix_fmt', 'yuv420p'] });
}

/** One gray frame as an image file (its format from the name: .png). */
export function writeGrayImage(gray: Uint8Array, size: { width: number; height: number }, path: string): void {
  encodeGray([gray], size, path, {});
}

/** ffmpeg reading raw gray frames of `size` (at `fps`) and writing `path` with the `output` options; throws when it fails. */
function encodeGray(
  frames: readonly Uint8Array[],
  size: { width: number; height: number },
  path: string,
  { fps, output = [] }: { fps?: number; output?: string[] },
): void {
  const encode = spawnSync(
    ffmpegPath(),
    [
      '-hide_banner',
      '-loglevel',
      'error',
      '-f',
      'rawvideo',
      '-pix_fmt',
      'gray',
      '-s',
      `${size.width}x${size.height}`,
      ...(fps ? ['-r', String(fps)] : []),
      '-i',
      'pipe:0',
      ...output,
      '-y',
      path,
    ],
    { input: Buffer.concat(frames.map((gray) => Buffer.from(gray.buffer, gray.byteOffset, gray.byteLength))) },
  );
  if (encode.status !== 0) throw new Error(`ffmpeg could not write ${path}: ${encode.stderr.toString()}`);
}

/** How far a recovered camera pose is from the truth: camera centre distance and the angle of R_est · R_trueᵀ. */
export function poseError(
  estimated: CameraModel,
  truth: CameraModel,
): { centreErrorM: number; rotationErrorDeg: number } {
  const centre = cameraCentreWorld(estimated);
  const trueCentre = cameraCentreWorld(truth);
  const A = estimated.rotationCameraFromWorld;
  const B = truth.rotationCameraFromWorld;
  // trace(A Bᵀ) = Σ A_ij B_ij = 1 + 2 cos θ.
  let trace = 0;
  for (let i = 0; i < 9; i++) trace += A[i] * B[i];
  const cosine = Math.max(-1, Math.min(1, (trace - 1) / 2));
  return {
    centreErrorM: Math.hypot(centre[0] - trueCentre[0], centre[1] - trueCentre[1], centre[2] - trueCentre[2]),
    rotationErrorDeg: (Math.acos(cosine) * 180) / Math.PI,
  };
}
