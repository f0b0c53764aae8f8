/**
 * The tags of the files the engine writes: the same strings as RESULT_TAGS in
 * packages/contracts/src/processing.ts, which the runner registers them under (the engine does
 * not depend on the contracts package).
 */
export const RESULT_TAG = {
  visualizerTransforms: 'visualizerTransforms-json',
  ikResults: 'ik_results',
  ikJson: 'IK-json',
  videoSync: 'video-sync',
  markerData: 'marker_data',
  opensimModel: 'opensim_model',
  mainSettings: 'main_settings',
  qualityReport: 'quality_report',
  c3d: 'c3d',
  ikCsv: 'ik-csv',
  neutralImage: 'neutral-img',
} as const;
