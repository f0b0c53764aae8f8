import { BlazePoseModel } from './blazepose-model.ts';
import { POSE_MODEL_NAMES, type PoseModel, type PoseModelName } from './pose-model.ts';
import { loadPackagedGraphModel } from './tfjs-runtime.ts';

/**
 * The implementation behind each model name, running under Node on the packaged files: the one place a
 * new model (a GPU one) is added.
 */
export function createPoseModel(name: PoseModelName): PoseModel {
  switch (name) {
    case 'blazepose-lite':
    case 'blazepose-full':
    case 'blazepose-heavy':
      return new BlazePoseModel(name, loadPackagedGraphModel);
    default:
      throw new Error(`Unknown pose model "${String(name)}": choose one of ${POSE_MODEL_NAMES.join(', ')}`);
  }
}
