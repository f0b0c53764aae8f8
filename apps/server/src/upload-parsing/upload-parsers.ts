import { readFile, stat } from 'node:fs/promises';
import { findCheckerboard } from '@kinetrace/mocap/calibration/checkerboard';
import { calibrateIntrinsics, type BoardSettings } from '@kinetrace/mocap/calibration/intrinsics';
import type { CameraModel } from '@kinetrace/mocap/camera/camera';
import { checkCameras, readCameraData, type ReadCameraFileOptions } from '@kinetrace/mocap/camera/formats/index';
import { decodeImage } from '@kinetrace/mocap/video/decode';
import { probeVideo } from '@kinetrace/mocap/video/probe';
import { CALIBRATION_FILE_MAX_BYTES, LENS_MAX_IMAGE_PIXELS } from '@kinetrace/contracts';

/** A board photo larger than LENS_MAX_IMAGE_PIXELS: refused before it is decoded. */
export class ImageTooLargeError extends Error {
  override name = 'ImageTooLargeError';
}

/** A calibration or lens file larger than CALIBRATION_FILE_MAX_BYTES: refused before it is read. */
export class CalibrationFileTooLargeError extends Error {
  override name = 'CalibrationFileTooLargeError';
}

async function readCalibrationBytes(path: string): Promise<Uint8Array> {
  const { size } = await stat(path);
  if (size > CALIBRATION_FILE_MAX_BYTES) throw new CalibrationFileTooLargeError(`${size} bytes`);
  return new Uint8Array(await readFile(path));
}

/**
 * The engine's readers of uploaded files, by name: what an upload parser thread runs
 * (upload-parser-thread.ts). Each reads the saved upload at `path` itself, so the file's bytes
 * never pass through the server's event loop; what it throws is answered by name and message.
 */
export const uploadParsers = {
  /** A calibration file (Kinetrace .json, Pose2Sim .toml, Qualisys .qca.txt, OpenCap .pickle), by the name it was uploaded under. */
  async 'camera-file'(input: {
    path: string;
    fileName: string;
    options: ReadCameraFileOptions;
  }): Promise<CameraModel[]> {
    return readCameraData(input.fileName, await readCalibrationBytes(input.path), input.options);
  },

  /** A `kinetrace calibrate` .json: its cameras, and the RMS error kept in its metadata. */
  async 'lens-json'(input: { path: string }): Promise<{ cameras: CameraModel[]; rmsPx: number | null }> {
    const bytes = await readCalibrationBytes(input.path);
    const cameras = readCameraData('lens.json', bytes);
    const file = JSON.parse(new TextDecoder().decode(bytes)) as { calibration?: { rmsPx?: unknown } };
    const rms = file.calibration?.rmsPx;
    return { cameras, rmsPx: typeof rms === 'number' && Number.isFinite(rms) ? rms : null };
  },

  /** A board photo: its size, and the board's inner corners where they were found. */
  async 'board-image'(input: {
    path: string;
    rows: number;
    cols: number;
  }): Promise<{ width: number; height: number; corners: Float64Array | null }> {
    const { width, height } = await probeVideo(input.path);
    if (width * height > LENS_MAX_IMAGE_PIXELS) throw new ImageTooLargeError(`${width} x ${height} pixels`);
    const image = await decodeImage(input.path, 'gray');
    const { detection } = findCheckerboard(image.data, image.width, image.height, input.rows, input.cols);
    return { width: image.width, height: image.height, corners: detection?.corners ?? null };
  },

  /** Zhang's calibration from the board's corners in several photos (k3 fixed at 0: few views). */
  async 'lens-intrinsics'(input: {
    views: Float64Array[];
    board: BoardSettings;
    imageSize: { width: number; height: number };
  }): Promise<{ intrinsics: Float64Array; distortion: Float64Array; rmsPx: number }> {
    const { camera, rmsPx } = await calibrateIntrinsics(input.views, input.board, input.imageSize, { name: 'lens' });
    checkCameras([camera]);
    return { intrinsics: camera.intrinsics, distortion: camera.distortion, rmsPx };
  },
};

export type UploadParsers = typeof uploadParsers;
export type UploadParserName = keyof UploadParsers;
