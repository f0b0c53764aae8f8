import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeC3d } from '../formats/c3d.ts';
import { storageToCsv } from '../formats/csv.ts';
import { isGaitTrialName } from '../filter/cutoff.ts';
import { fitTrial } from '../model-fitting/fit-trial.ts';
import { readOsim } from '../model/read-osim.ts';
import { fileSafe } from './file-names.ts';
import { ikJson } from './ik-json.ts';
import { buildMainSettings } from './main-settings.ts';
import { chooseAugmenter, scaledModelChoice } from './model-choice.ts';
import { ikSettingsForModel } from '../model-fitting/fit-neutral.ts';
import { inverseKinematicsFigures, type ReportWithModelFit } from './model-fit-report.ts';
import { MOVEMENT_STAGES, stageProgress } from './progress.ts';
import { reconstructSessionTrial } from './reconstruct-session-trial.ts';
import { RESULT_TAG } from './result-tags.ts';
import { writeSyncVideos } from './sync-videos.ts';
import { trialClock } from './trial-clock.ts';
import type { MovementInput, MovementOutcome, MovementResultsFirst, OutputFile, RunOptions } from './types.ts';

/**
 * A movement trial (spec §4.2): 3D keypoints with the neutral's cameras → inverse kinematics of
 * the session's scaled model → the motion (.mot, degrees, and as JSON), markers, model, viewer
 * JSON, one synchronised video per camera (and its de-identified twin), settings and quality report, written to outDir.
 */
export async function processMovement(input: MovementInput, options: RunOptions = {}): Promise<MovementOutcome> {
  const progress = stageProgress(MOVEMENT_STAGES, options.onProgress);
  const first = await movementResults(input, options, progress);
  progress('outputs', 1, 10);
  const videos = await first.writeSyncVideos((done, total) => progress('outputs', 1 + (9 * done) / total, 10));
  progress('outputs', 1, 1);
  return { files: [...first.files, ...videos] };
}

/**
 * The same trial with its results first (issue 24): everything but the synchronised videos, written, and
 * those videos as a step of their own that the caller runs after (they decode every video again, a
 * third of the trial's time). Its `outputs` stage ends with the results.
 */
export async function processMovementResultsFirst(
  input: MovementInput,
  options: RunOptions = {},
): Promise<MovementResultsFirst> {
  const progress = stageProgress(MOVEMENT_STAGES, options.onProgress);
  const first = await movementResults(input, options, progress);
  progress('outputs', 1, 1);
  return first;
}

async function movementResults(
  input: MovementInput,
  options: RunOptions,
  progress: ReturnType<typeof stageProgress>,
): Promise<MovementResultsFirst> {
  const isGait = input.settings.isGait ?? isGaitTrialName(input.trialName);
  const result = await reconstructSessionTrial(
    {
      trialName: input.trialName,
      videos: input.videos,
      cameras: input.cameras,
      calibrationErrorsPx: input.calibrationErrorsPx,
      settings: input.settings,
      isGait,
    },
    options,
    progress,
  );

  progress('scale_ik', 0, 1);
  const model = readOsim(input.scaledModelOsim);
  const { augmenter, choice: augmenterChoice } = await chooseAugmenter(input.settings);
  const fit = fitTrial({
    trial: result.keypoints,
    model,
    subject: input.subject,
    augmenter,
    osim: input.scaledModelOsim,
    ikTasks: ikSettingsForModel(model),
    name: input.trialName,
    onProgress: (done, total) => progress('scale_ik', done, total),
  });

  progress('outputs', 0, 1);
  await mkdir(input.outDir, { recursive: true });
  const base = join(input.outDir, fileSafe(input.trialName));
  const mainSettings = buildMainSettings({
    trialName: input.trialName,
    kind: 'movement',
    settings: input.settings,
    subject: input.subject,
    model: scaledModelChoice(input.settings, model),
    augmenter: augmenterChoice,
    result,
    isGait,
  });
  const report: ReportWithModelFit = {
    ...result.report,
    modelFit: { inverseKinematics: inverseKinematicsFigures(fit, model) },
  };
  const written: [OutputFile, string | Uint8Array][] = [
    [{ tag: RESULT_TAG.ikResults, path: `${base}.mot` }, fit.files.mot],
    [{ tag: RESULT_TAG.ikJson, path: `${base}_ik.json` }, JSON.stringify(ikJson(fit.motion, model))],
    [{ tag: RESULT_TAG.markerData, path: `${base}.trc` }, fit.files.trc],
    [{ tag: RESULT_TAG.c3d, path: `${base}.c3d` }, writeC3d(fit.markers)],
    [{ tag: RESULT_TAG.ikCsv, path: `${base}.csv` }, storageToCsv(fit.motion)],
    [{ tag: RESULT_TAG.opensimModel, path: `${base}.osim` }, fit.files.osim],
    [{ tag: RESULT_TAG.visualizerTransforms, path: `${base}_visualizer.json` }, fit.files.visualizerJson],
    [{ tag: RESULT_TAG.mainSettings, path: `${base}_settings.json` }, `${JSON.stringify(mainSettings, null, 2)}\n`],
    [{ tag: RESULT_TAG.qualityReport, path: `${base}_report.json` }, `${JSON.stringify(report, null, 2)}\n`],
  ];
  await Promise.all(written.map(([file, text]) => writeFile(file.path, text)));
  const clock = trialClock(result);
  return {
    files: written.map(([file]) => file),
    writeSyncVideos: (onProgress) =>
      writeSyncVideos(clock, input.videos, result.keypoints2D, input.trialName, input.outDir, onProgress),
  };
}
