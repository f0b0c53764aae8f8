/**
 * The folder layout of session archives (documented in docs/downloads.md), close to OpenCap's so
 * that existing analysis scripts find their files:
 *
 *   <session>/sessionMetadata.yaml
 *   <session>/Videos/Cam<i>/InputMedia/<trial>/<trial>.<ext>     one folder per camera (device)
 *   <session>/MarkerData/<file>                                   .trc of each trial
 *   <session>/OpenSimData/Kinematics/<file>                       .mot of each trial
 *   <session>/OpenSimData/Model/<file>                            the scaled model
 *   <session>/VisualizerJsons/<trial>/<file>                      3D viewer data
 *   <session>/CalibrationImages/<file>, NeutralImages/<file>
 *   <session>/Results/<trial>/<tag>/<file>                        anything else, by result tag
 */
const resultFolders: Record<string, (trial: string) => string> = {
  'marker-data': () => 'MarkerData',
  ik_results: () => 'OpenSimData/Kinematics',
  'opensim-model': () => 'OpenSimData/Model',
  'visualizerTransforms-json': (trial) => `VisualizerJsons/${trial}`,
  'video-sync': (trial) => `VisualizerVideos/${trial}`,
  'calibration-img': () => 'CalibrationImages',
  'neutral-img': () => 'NeutralImages',
  'camera-parameters': () => 'CameraParameters',
  'quality-report': (trial) => `QualityReports/${trial}`,
};

/** Keeps names portable across file systems (no separators, no control characters). */
export function safeName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^\.+/, '_') || '_';
}

export function resultPath(trialName: string, tag: string, fileName: string): string {
  const folder = resultFolders[tag]?.(safeName(trialName)) ?? `Results/${safeName(trialName)}/${safeName(tag)}`;
  return `${folder}/${safeName(fileName)}`;
}

export function videoPath(cameraIndex: number, trialName: string, extension: string): string {
  const trial = safeName(trialName);
  return `Videos/Cam${cameraIndex}/InputMedia/${trial}/${trial}.${safeName(extension)}`;
}
