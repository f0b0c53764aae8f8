/**
 * Input (feature) and output (response) markers of OpenCap's marker augmenters v0.3+ (the LSTM of
 * OpenCap v0.3 and the marker-enhancer reference models), in the order the networks were trained
 * with: opencap-core utils.py getOpenPoseMarkers_lowerExtremity2 (body) and
 * getMarkers_upperExtremity_noPelvis2 (arm). Inputs are taken relative to the reference marker
 * named in each model's metadata.json (midHip).
 */
export interface AugmenterMarkerSet {
  part: 'body' | 'arm';
  featureMarkers: readonly string[];
  responseMarkers: readonly string[];
}

export const BODY_AUGMENTER_MARKERS: AugmenterMarkerSet = {
  part: 'body',
  featureMarkers: [
    'Neck',
    'RShoulder',
    'LShoulder',
    'RHip',
    'LHip',
    'RKnee',
    'LKnee',
    'RAnkle',
    'LAnkle',
    'RHeel',
    'LHeel',
    'RSmallToe',
    'LSmallToe',
    'RBigToe',
    'LBigToe',
  ],
  responseMarkers: [
    'r.ASIS_study',
    'L.ASIS_study',
    'r.PSIS_study',
    'L.PSIS_study',
    'r_knee_study',
    'r_mknee_study',
    'r_ankle_study',
    'r_mankle_study',
    'r_toe_study',
    'r_5meta_study',
    'r_calc_study',
    'L_knee_study',
    'L_mknee_study',
    'L_ankle_study',
    'L_mankle_study',
    'L_toe_study',
    'L_calc_study',
    'L_5meta_study',
    'r_shoulder_study',
    'L_shoulder_study',
    'C7_study',
    'r_thigh1_study',
    'r_thigh2_study',
    'r_thigh3_study',
    'L_thigh1_study',
    'L_thigh2_study',
    'L_thigh3_study',
    'r_sh1_study',
    'r_sh2_study',
    'r_sh3_study',
    'L_sh1_study',
    'L_sh2_study',
    'L_sh3_study',
    'RHJC_study',
    'LHJC_study',
  ],
};

export const ARM_AUGMENTER_MARKERS: AugmenterMarkerSet = {
  part: 'arm',
  featureMarkers: ['Neck', 'RShoulder', 'LShoulder', 'RElbow', 'LElbow', 'RWrist', 'LWrist'],
  responseMarkers: [
    'r_lelbow_study',
    'r_melbow_study',
    'r_lwrist_study',
    'r_mwrist_study',
    'L_lelbow_study',
    'L_melbow_study',
    'L_lwrist_study',
    'L_mwrist_study',
  ],
};

/** Features per model: 3 coordinates per feature marker, then height and mass. */
export function augmenterInputSize(markers: AugmenterMarkerSet): number {
  return markers.featureMarkers.length * 3 + 2;
}
