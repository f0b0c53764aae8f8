import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeTrc } from '../formats/trc.ts';
import { keypointsToJson } from '../report/keypoints-json.ts';
import type { Reconstruction } from './reconstruct-trial.ts';

/** The files of a processed trial (see docs/process.md). */
export interface TrialOutputFiles {
  trc: string;
  keypointsJson: string;
  report: string;
}

/** Writes `<trial>.trc`, `<trial>_keypoints.json` and `<trial>_report.json` into `directory`. */
export async function writeTrialOutputs(
  reconstruction: Reconstruction,
  trialName: string,
  directory: string,
): Promise<TrialOutputFiles> {
  await mkdir(directory, { recursive: true });
  const files: TrialOutputFiles = {
    trc: join(directory, `${trialName}.trc`),
    keypointsJson: join(directory, `${trialName}_keypoints.json`),
    report: join(directory, `${trialName}_report.json`),
  };
  await writeFile(files.trc, writeTrc(reconstruction.keypoints, `${trialName}.trc`));
  await writeFile(files.keypointsJson, JSON.stringify(keypointsToJson(reconstruction.keypoints)));
  await writeFile(files.report, `${JSON.stringify(reconstruction.report, null, 2)}\n`);
  return files;
}
