/**
 * Kinetrace's motion-capture engine: pure stages from phone videos to 3D keypoints, a scaled model
 * and joint angles (DESIGN.md §2). Each stage is also importable on its own path
 * (`@kinetrace/mocap/<folder>/<file>`); this is the short list a worker or a script needs.
 */
export type { CameraModel } from './camera/camera.ts';
export { readCameraFile, writeCameraFile } from './camera/formats/index.ts';

// 1. Video input
export { probeVideo } from './video/probe.ts';
export { decodeFrames, decodeImage } from './video/decode.ts';
export type { VideoInfo } from './video/types.ts';

// 2. Calibration
export { detectCheckerboard } from './calibration/checkerboard.ts';
export { calibrateIntrinsics } from './calibration/intrinsics.ts';
export {
  calibrateCameraFromVideo,
  calibrateCameraFromFrames,
  BoardNotFoundError,
} from './calibration/camera-calibration.ts';

// 3. 2D pose
export { VIDEO_KEYPOINTS } from './pose/keypoints.ts';
export { detectPose2D } from './pose/detect-pose.ts';
export type { Keypoints2D } from './pose/types.ts';

// 4–6. Synchronisation, triangulation, filtering, and the whole of steps 1–6
export { synchronise } from './sync/synchronise.ts';
export { triangulate } from './triangulation/triangulate.ts';
export { filterTrajectories } from './filter/filter-trajectories.ts';
export { processTrial } from './pipeline/process-trial.ts';
export { processFolder } from './pipeline/process-folder.ts';
export { ProcessingError } from './pipeline/processing-error.ts';

// 7–10. Augmentation, model, scaling, inverse kinematics, outputs
export { loadMarkerAugmenter } from './augmenter/load-augmenter.ts';
export { augmentMarkers } from './augmenter/marker-augmenter.ts';
export { readOsim } from './model/read-osim.ts';
export { KinematicModel } from './model/kinematic-model.ts';
export { createDefaultModel } from './default-model/default-model.ts';
export { scaleModelToSubject } from './scaling/scale-model-to-subject.ts';
export { solveInverseKinematics } from './ik/inverse-kinematics.ts';
export { fitNeutral } from './model-fitting/fit-neutral.ts';
export { fitTrial } from './model-fitting/fit-trial.ts';
export { visualizerTransforms, formatVisualizerJson } from './model/visualizer-json.ts';

// File formats
export { readTrc, writeTrc, type MarkerTrajectories } from './formats/trc.ts';
export { readStorage, writeStorage } from './formats/mot.ts';
export { writeOsim } from './formats/osim-writer.ts';

// Analyses of a processed trial (gait, squat, sit-to-stand, drop jump)
export {
  analyseTrial,
  loadAnalysisInput,
  AnalysisError,
  analysisTitles,
  type AnalysisInput,
} from './analyses/index.ts';
