import { readStorage, type StorageTable } from '../formats/mot.ts';
import { KinematicModel } from '../model/kinematic-model.ts';
import { readOsim } from '../model/read-osim.ts';
import { AnalysisError } from './analysis-error.ts';

/**
 * What an analysis reads: the trial's scaled model (bodies, joints and, when the file has them,
 * body masses and mass centres), its motion (coordinates over time, as IK wrote them), and the
 * subject's height and mass when known (thresholds scaled to height; mass is not needed for the
 * centre of mass, which uses the model's own segment masses).
 */
export interface AnalysisInput {
  model: KinematicModel;
  motion: StorageTable;
  heightM?: number;
  massKg?: number;
}

/** Parses the texts of a scaled .osim and a .mot into an AnalysisInput. */
export function loadAnalysisInput(files: {
  modelXml: string;
  motionText: string;
  heightM?: number;
  massKg?: number;
}): AnalysisInput {
  let model: KinematicModel;
  let motion: StorageTable;
  try {
    model = new KinematicModel(readOsim(files.modelXml));
  } catch (error) {
    throw new AnalysisError(
      `The trial's scaled model could not be read: ${(error as Error).message} Process the trial again to rebuild it.`,
    );
  }
  try {
    motion = readStorage(files.motionText);
  } catch (error) {
    throw new AnalysisError(
      `The trial's joint angles could not be read: ${(error as Error).message} Process the trial again to rebuild them.`,
    );
  }
  return {
    model,
    motion,
    ...(files.heightM !== undefined && { heightM: files.heightM }),
    ...(files.massKg !== undefined && { massKg: files.massKg }),
  };
}
