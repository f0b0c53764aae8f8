/**
 * The calibration step of the pipeline: one camera's calibration video → camera model(s).
 *
 * The board (rows x cols INNER corners, square size in mm, placement) is looked for in the last
 * frames of the video (the board is placed, the phone set down, then it stays still: the end is
 * where it is steadiest). Several frames are tried and the sharpest good detection is kept.
 * Extrinsics come from the two planar (IPPE) solutions, both returned with their reprojection
 * errors, best first; the world frame follows the placement (see extrinsics.ts).
 */
import type { CameraModel } from '../camera/camera.ts';
import { type CheckerboardDetection, checkerboardObjectPoints, findCheckerboard } from './checkerboard.ts';
import { type BoardPlacement, cameraInWorld, focalFromBoardHomography, solvePlanarPose } from './extrinsics.ts';
import { decodeFrames } from '../video/decode.ts';
import { probeVideo } from '../video/probe.ts';

export interface BoardSpec {
  /** INNER corners (a board of 5 x 8 squares has 4 x 7 inner corners), either way round. */
  rows: number;
  cols: number;
  squareSizeMm: number;
  placement: BoardPlacement;
}

export interface GrayFrame {
  data: Uint8Array;
  width: number;
  height: number;
  /** Index of the frame in its video (for messages). */
  index?: number;
}

export interface CalibrationSolution {
  camera: CameraModel;
  /** RMS reprojection error of the board corners, pixels. */
  boardRmsPx: number;
}

export interface CameraCalibration {
  /** Both planar pose solutions, lowest board reprojection error first. */
  solutions: CalibrationSolution[];
  /** The frame the board was taken from, and the detection. */
  frameIndex: number;
  detection: CheckerboardDetection;
  /** Whether the intrinsics are the single-view fallback (focal from the board, no distortion). */
  intrinsicsEstimated: boolean;
}

export interface CalibrateCameraOptions {
  /** Camera name used in the model and in error messages. */
  cameraName: string;
  /** Known intrinsics and distortion (e.g. from `kinetrace calibrate` or a phone-model file). */
  intrinsics?: Pick<CameraModel, 'intrinsics' | 'distortion'> & { imageSize?: { width: number; height: number } };
  /** How many of the last frames to try (default 8). */
  framesToTry?: number;
}

export class BoardNotFoundError extends Error {
  override readonly name = 'BoardNotFoundError';
  constructor(
    readonly cameraName: string,
    message: string,
    /** A board of other inner-corner counts that is visible instead (a miscounted board), when one is. */
    readonly visibleBoard?: { rows: number; cols: number },
  ) {
    super(message);
  }
}

/**
 * The usual miscounts of a board (rows and columns swapped needs no guess: detection accepts the
 * grid either way round): squares counted instead of inner corners (one more each way than the
 * board has), and the reverse.
 */
function miscountedBoards(board: BoardSpec): { rows: number; cols: number }[] {
  return [
    { rows: board.rows - 1, cols: board.cols - 1 },
    { rows: board.rows + 1, cols: board.cols + 1 },
  ].filter(({ rows, cols }) => rows >= 2 && cols >= 2);
}

function miscountMessage(board: BoardSpec, visible: { rows: number; cols: number }): string {
  const advice =
    visible.rows < board.rows
      ? 'count the inner corners where four squares meet, not the squares.'
      : `set the rows and columns to ${visible.rows} and ${visible.cols}, the inner corners where four squares meet.`;
  return `A board with ${visible.rows} × ${visible.cols} inner corners is visible, but the session is set to ${board.rows} × ${board.cols}: ${advice}`;
}

/** Keeps the last `size` items of a stream. */
class Ring<T> {
  private readonly items: T[] = [];
  constructor(private readonly size: number) {}
  push(item: T): void {
    this.items.push(item);
    if (this.items.length > this.size) this.items.shift();
  }
  newestFirst(): T[] {
    return [...this.items].reverse();
  }
}

function notFoundMessage(
  cameraName: string,
  board: BoardSpec,
  framesTried: number,
  largestGrid: { rows: number; cols: number } | null,
): string {
  const squares = `${board.rows + 1} x ${board.cols + 1}`;
  const lines = [
    `Camera "${cameraName}": the ${board.rows} x ${board.cols} checkerboard was not found in the last ${framesTried} frame(s) of its calibration video.`,
  ];
  if (largestGrid && (largestGrid.rows !== board.rows || largestGrid.cols !== board.cols)) {
    lines.push(
      `A grid of ${largestGrid.rows} x ${largestGrid.cols} inner corners was seen: if that is the whole board, set rows and columns to ${largestGrid.rows} and ${largestGrid.cols}; otherwise part of the board is hidden or out of view.`,
    );
  }
  lines.push(
    'Check that:',
    `- rows and columns count INNER corners, where four squares meet (your settings mean a board of ${squares} squares);`,
    '- the whole board, with its white border, is in view of this camera at the end of the video, and nothing covers it;',
    '- the board is well and evenly lit: no glare or reflections on it, no strong shadow across it;',
    '- the board is sharp: held still, in focus, not too far (each square at least ~15 pixels wide), not seen too edge-on;',
    '- the board is flat and printed with black and white squares.',
  );
  return lines.join('\n');
}

/**
 * Calibrates one camera from its calibration video's frames (gray). Throws BoardNotFoundError with
 * an actionable message when the board is not found.
 */
export async function calibrateCameraFromFrames(
  frames: Iterable<GrayFrame> | AsyncIterable<GrayFrame>,
  board: BoardSpec,
  options: CalibrateCameraOptions,
): Promise<CameraCalibration> {
  const ring = new Ring<GrayFrame>(Math.max(1, options.framesToTry ?? 8));
  let count = 0;
  for await (const frame of frames as AsyncIterable<GrayFrame>) {
    ring.push({ ...frame, index: frame.index ?? count });
    count++;
  }
  if (count === 0) {
    throw new BoardNotFoundError(
      options.cameraName,
      `Camera "${options.cameraName}": its calibration video has no frames.`,
    );
  }
  let best: { frame: GrayFrame; detection: CheckerboardDetection } | null = null;
  let largestGrid: { rows: number; cols: number } | null = null;
  const tried = ring.newestFirst();
  for (const frame of tried) {
    const { detection, diagnostics } = findCheckerboard(frame.data, frame.width, frame.height, board.rows, board.cols);
    if (
      diagnostics.largestGrid &&
      (!largestGrid ||
        diagnostics.largestGrid.rows * diagnostics.largestGrid.cols > largestGrid.rows * largestGrid.cols)
    ) {
      largestGrid = diagnostics.largestGrid;
    }
    if (detection && (!best || detection.sharpness > best.detection.sharpness)) best = { frame, detection };
  }
  if (!best) {
    for (const other of miscountedBoards(board)) {
      if (
        !tried.some(
          (frame) => findCheckerboard(frame.data, frame.width, frame.height, other.rows, other.cols).detection,
        )
      )
        continue;
      throw new BoardNotFoundError(
        options.cameraName,
        `Camera "${options.cameraName}": the ${board.rows} x ${board.cols} checkerboard was not found. ${miscountMessage(board, other)}`,
        other,
      );
    }
    throw new BoardNotFoundError(
      options.cameraName,
      notFoundMessage(options.cameraName, board, tried.length, largestGrid),
    );
  }
  return calibrateCameraFromDetection(
    best.detection,
    { width: best.frame.width, height: best.frame.height },
    board,
    options,
    best.frame.index ?? 0,
  );
}

/**
 * Calibrates one camera from its calibration video file: decodes (gray) `framesToTry` frames
 * spread over the last second or so of the video and calls calibrateCameraFromFrames.
 */
export async function calibrateCameraFromVideo(
  path: string,
  board: BoardSpec,
  options: CalibrateCameraOptions,
): Promise<CameraCalibration> {
  const info = await probeVideo(path);
  const framesToTry = Math.max(1, options.framesToTry ?? 8);
  const span = Math.min(info.frameCount, Math.max(framesToTry, Math.round(info.fps || 30)));
  const step = Math.max(1, Math.floor(span / framesToTry));
  // Skip the very last frames: phones often write a last frame or two while stopping.
  const endFrame = Math.max(1, info.frameCount - Math.min(2, Math.floor(info.frameCount / 10)));
  const startFrame = Math.max(0, endFrame - step * framesToTry);
  const frames = decodeFrames(path, { pixelFormat: 'gray', startFrame, endFrame, step, info });
  return calibrateCameraFromFrames(frames, board, { ...options, framesToTry });
}

/** Calibrates one camera from a single board detection (see calibrateCameraFromFrames). */
export function calibrateCameraFromDetection(
  detection: CheckerboardDetection,
  imageSize: { width: number; height: number },
  board: BoardSpec,
  options: CalibrateCameraOptions,
  frameIndex = 0,
): CameraCalibration {
  const objectPoints = checkerboardObjectPoints(board.rows, board.cols, board.squareSizeMm / 1000);
  let intrinsics: Float64Array;
  let distortion: Float64Array;
  let intrinsicsEstimated = false;
  if (options.intrinsics) {
    intrinsics = Float64Array.from(options.intrinsics.intrinsics);
    distortion = Float64Array.from(options.intrinsics.distortion);
    const known = options.intrinsics.imageSize;
    if (known && (known.width !== imageSize.width || known.height !== imageSize.height)) {
      throw new Error(
        `Camera "${options.cameraName}": the intrinsics are for ${known.width} x ${known.height} images but the calibration video is ${imageSize.width} x ${imageSize.height}. ` +
          'Use intrinsics calibrated at the same resolution and orientation.',
      );
    }
  } else {
    const f = focalFromBoardHomography(objectPoints, detection.corners, imageSize);
    intrinsics = Float64Array.from([f, 0, (imageSize.width - 1) / 2, 0, f, (imageSize.height - 1) / 2, 0, 0, 1]);
    distortion = new Float64Array(5);
    intrinsicsEstimated = true;
  }
  const base: CameraModel = {
    name: options.cameraName,
    imageSize: { ...imageSize },
    intrinsics,
    distortion,
    rotationCameraFromWorld: Float64Array.from([1, 0, 0, 0, 1, 0, 0, 0, 1]),
    translationCameraFromWorldM: new Float64Array(3),
  };
  const poses = solvePlanarPose(base, objectPoints, detection.corners);
  if (poses.length === 0) {
    throw new Error(`Camera "${options.cameraName}": the board pose could not be computed from the detected corners.`);
  }
  return {
    solutions: poses.map((pose) => ({ camera: cameraInWorld(base, pose, board.placement), boardRmsPx: pose.rmsPx })),
    frameIndex,
    detection,
    intrinsicsEstimated,
  };
}
