import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { KeypointSetName } from '@kinetrace/contracts';
import type { CameraDetection, KeypointsSource } from '@kinetrace/mocap/formats/keypoints-2d-files';

/**
 * A camera's 2D keypoints made elsewhere (imported with its video, issue 24) as files to put in a work
 * folder: the server's in-process runner copies them from its store, a remote worker downloads them
 * (each `File` says from where), and both lay them out here, as the engine reads them (readKeypoints2D).
 */
export interface KeypointsFiles<File> {
  /** One Kinetrace keypoints .json, or OpenPose files (one per frame) in a folder. */
  layout: 'kinetrace' | 'openpose';
  /** The Kinetrace file's name in the work folder, or the OpenPose files' folder's. */
  name: string;
  keypointSet?: KeypointSetName;
  /** Found by the camera's phone (issue 24): the engine checks them before it uses them. */
  fromPhone?: boolean;
  /** The server's own detection, made as the video arrived (detect-on-arrival.ts): the engine uses it only if made as it detects. */
  detectedWith?: CameraDetection;
  /** The OpenPose files in frame order (the engine reads them in name order), each with its name; the one Kinetrace file. */
  files: (File & { fileName: string })[];
}

/** The source the engine reads the keypoints from, once placed in `workDir`. */
export function keypointsSourceIn(workDir: string, keypoints: Omit<KeypointsFiles<unknown>, 'files'>): KeypointsSource {
  return {
    path: join(workDir, keypoints.name),
    ...(keypoints.keypointSet && { keypointSet: keypoints.keypointSet }),
    ...(keypoints.fromPhone && { fromPhone: true }),
    ...(keypoints.detectedWith && { detectedWith: keypoints.detectedWith }),
  };
}

/** Writes each file (`write` fetches it to the path) where the engine reads it; the OpenPose files one at a time. */
export async function placeKeypoints<File>(
  workDir: string,
  keypoints: KeypointsFiles<File>,
  write: (file: File, path: string) => Promise<void>,
): Promise<KeypointsSource> {
  const source = keypointsSourceIn(workDir, keypoints);
  if (keypoints.layout === 'kinetrace') {
    await mkdir(workDir, { recursive: true });
    await write(keypoints.files[0], source.path);
  } else {
    await mkdir(source.path, { recursive: true });
    for (const file of keypoints.files) await write(file, join(source.path, file.fileName));
  }
  return source;
}
