import { extname } from 'node:path';
import { RESULT_TAGS } from '@kinetrace/contracts';

/**
 * The folder layout of session archives (documented in docs/downloads.md), close to OpenCap's so
 * that existing analysis scripts find their files:
 *
 *   <session>/sessionMetadata.yaml
 *   <session>/Videos/Cam<i>/InputMedia/<trial>/<trial>.<ext>     one folder per camera (device)
 *   <session>/MarkerData/<trial>.trc, <trial>.c3d                 3D keypoints of each trial
 *   <session>/OpenSimData/Kinematics/<trial>.mot, <trial>.csv     joint angles of each trial
 *   <session>/OpenSimData/Model/<trial>/<file>                    the scaled model (neutral) and the one each trial used
 *   <session>/VisualizerJsons/<trial>/<file>                      3D viewer data
 *   <session>/CalibrationImages/<file>, NeutralImages/<file>
 *   <session>/CameraParameters/<trial>/<file>                     calibration candidates; the neutral's chosen cameras
 *   <session>/Results/<trial>/<tag>/<file>                        anything else, by result tag
 */
const resultFolders: Record<string, (trial: string, fileName: string) => string> = {
  [RESULT_TAGS.markerData]: (trial, fileName) => `MarkerData/${trial}${extname(fileName)}`,
  [RESULT_TAGS.ikResults]: (trial, fileName) => `OpenSimData/Kinematics/${trial}${extname(fileName)}`,
  [RESULT_TAGS.c3d]: (trial, fileName) => `MarkerData/${trial}${extname(fileName)}`,
  [RESULT_TAGS.ikCsv]: (trial, fileName) => `OpenSimData/Kinematics/${trial}${extname(fileName)}`,
  [RESULT_TAGS.opensimModel]: (trial, fileName) => `OpenSimData/Model/${trial}/${fileName}`,
  [RESULT_TAGS.visualizerTransforms]: (trial, fileName) => `VisualizerJsons/${trial}/${fileName}`,
  [RESULT_TAGS.videoSync]: (trial, fileName) => `VisualizerVideos/${trial}/${fileName}`,
  [RESULT_TAGS.calibrationImage]: (_, fileName) => `CalibrationImages/${fileName}`,
  [RESULT_TAGS.neutralImage]: (_, fileName) => `NeutralImages/${fileName}`,
  [RESULT_TAGS.cameraParameters]: (trial, fileName) => `CameraParameters/${trial}/${fileName}`,
  [RESULT_TAGS.qualityReport]: (trial, fileName) => `QualityReports/${trial}/${fileName}`,
};

/** Keeps names portable across file systems (no separators, no control characters). */
export function safeName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^\.+/, '_') || '_';
}

export function resultPath(trialName: string, tag: string, fileName: string): string {
  const trial = safeName(trialName);
  const file = safeName(fileName);
  return resultFolders[tag]?.(trial, file) ?? `Results/${trial}/${safeName(tag)}/${file}`;
}

export function videoPath(cameraIndex: number, trialName: string, extension: string): string {
  const trial = safeName(trialName);
  return `Videos/Cam${cameraIndex}/InputMedia/${trial}/${trial}.${safeName(extension)}`;
}
