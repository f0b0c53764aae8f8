import { extname } from 'node:path';
import { RESULT_TAGS } from '@kinetrace/contracts';

/**
 * The folder layout of session archives (documented in docs/downloads.md): OpenCap's, so that its
 * analysis scripts (opencap-processing) find their files where its own downloads put them:
 *
 *   <session>/sessionMetadata.yaml                                OpenCap's keys, naming the model used
 *   <session>/Videos/mappingCamDevice.pickle                      {device id: camera index}
 *   <session>/Videos/Cam<i>/InputMedia/<trial>/<trial>.<ext>      one folder per camera (device)
 *   <session>/Videos/Cam<i>/InputMedia/<trial>/<trial>_sync.mp4   the synchronised video
 *   <session>/MarkerData/<trial>.trc, <trial>.c3d                 3D markers of each trial
 *   <session>/MarkerData/Settings/settings_<trial>.yaml           what each trial was processed with
 *   <session>/OpenSimData/Kinematics/<trial>.mot, <trial>.csv     joint angles of each trial
 *   <session>/OpenSimData/Model/<openSimModel>_scaled.osim        the neutral's scaled model
 *   <session>/OpenSimData/Model/<trial>/<file>                    the model another trial used
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
  // JSON, which YAML readers read as it is.
  [RESULT_TAGS.mainSettings]: (trial) => `MarkerData/Settings/settings_${trial}.yaml`,
  [RESULT_TAGS.calibrationImage]: (_, fileName) => `CalibrationImages/${fileName}`,
  [RESULT_TAGS.neutralImage]: (_, fileName) => `NeutralImages/${fileName}`,
  [RESULT_TAGS.cameraParameters]: (trial, fileName) => `CameraParameters/${trial}/${fileName}`,
  [RESULT_TAGS.qualityReport]: (trial, fileName) => `QualityReports/${trial}/${fileName}`,
};

/** Keeps names portable across file systems (no separators, no control characters). */
export function safeName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^\.+/, '_') || '_';
}

/** Where OpenCap's layout puts a result: per camera by its `Cam<i>`, the neutral's model by the model's name. */
export interface ResultPlace {
  cameraIndex?: number;
  /** The neutral's model: `<openSimModel>`, whose scaled model OpenCap's scripts open. */
  scaledModelName?: string;
}

export function resultPath(trialName: string, tag: string, fileName: string, place: ResultPlace = {}): string {
  const trial = safeName(trialName);
  const file = safeName(fileName);
  if (tag === RESULT_TAGS.videoSync && place.cameraIndex !== undefined)
    return `Videos/Cam${place.cameraIndex}/InputMedia/${trial}/${trial}_sync${extname(file)}`;
  if (tag === RESULT_TAGS.opensimModel && place.scaledModelName)
    return `OpenSimData/Model/${safeName(place.scaledModelName)}_scaled.osim`;
  return resultFolders[tag]?.(trial, file) ?? `Results/${trial}/${safeName(tag)}/${file}`;
}

export function videoPath(cameraIndex: number, trialName: string, extension: string): string {
  const trial = safeName(trialName);
  return `Videos/Cam${cameraIndex}/InputMedia/${trial}/${trial}.${safeName(extension)}`;
}
