import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeTrc } from '../formats/trc.ts';
import { readOsimTree } from '../model/read-osim.ts';
import type { XmlDocument } from '../model/xml-tree.ts';
import { fitNeutral, keypointScaleSettings } from '../model-fitting/fit-neutral.ts';
import type { ScaleSettings } from '../scaling/scale-model-to-subject.ts';
import { fileSafe } from './file-names.ts';
import { buildMainSettings } from './main-settings.ts';
import { chooseAugmenter, chooseModel } from './model-choice.ts';
import { type ReportWithModelFit, scalingFigures } from './model-fit-report.ts';
import { KeypointsMissingError } from '../pipeline/processing-error.ts';
import { neutralKeypointsLeftOut, neutralKeypointsMissing } from './missing-keypoints.ts';
import { writeNeutralImages } from './neutral-images.ts';
import { NEUTRAL_STAGES, stageProgress } from './progress.ts';
import { reconstructSessionTrial } from './reconstruct-session-trial.ts';
import { RESULT_TAG } from './result-tags.ts';
import { trialClock } from './trial-clock.ts';
import type { NeutralInput, NeutralOutcome, OutputFile, ProcessingSettings, RunOptions } from './types.ts';

const TRIAL_NAME = 'neutral';

/**
 * The neutral trial (spec §4.2): 3D keypoints, with the board solution per camera that best
 * explains the person chosen and kept for the session; the model scaled to the subject; the
 * scaled model, markers, settings, quality report and one image per camera written to outDir.
 */
export async function processNeutral(input: NeutralInput, options: RunOptions = {}): Promise<NeutralOutcome> {
  if (
    input.cameraSolutions.length !== input.videos.length ||
    input.cameraSolutions.some((solutions) => solutions.length === 0)
  ) {
    throw new Error(
      `processNeutral: ${input.videos.length} videos need as many non-empty camera solution lists (got ${input.cameraSolutions.length})`,
    );
  }
  const progress = stageProgress(NEUTRAL_STAGES, options.onProgress);
  const hasChoice = input.cameraSolutions.some((solutions) => solutions.length > 1);
  const result = await reconstructSessionTrial(
    {
      trialName: TRIAL_NAME,
      videos: input.videos,
      cameras: input.cameraSolutions.map((solutions) => solutions[0]),
      cameraSolutions: hasChoice
        ? input.cameraSolutions.map((solutions, c) =>
            solutions.map((camera, k) => ({ camera, boardRmsPx: input.boardRmsPx?.[c]?.[k] ?? Number.NaN })),
          )
        : undefined,
      calibrationErrorsPx: input.cameraSolutions.map((_, c) => input.boardRmsPx?.[c]?.[0]),
      // The subject stands still: no lag changes what the cameras see, so the phones' start times
      // stand and no frame is cut (a lag "found" on a still person is noise: 3 of the demo's 11
      // static frames were lost to one).
      settings: { ...input.settings, synchronise: false },
      isGait: false,
      neutral: true,
    },
    options,
    progress,
  );

  progress('scale_ik', 0, 1);
  const [{ model, choice: modelChoice }, { augmenter, choice: augmenterChoice }] = await Promise.all([
    chooseModel(input.settings),
    chooseAugmenter(input.settings),
  ]);
  let fit: ReturnType<typeof fitNeutral>;
  try {
    fit = fitNeutral({
      neutral: result.keypoints,
      subject: input.subject,
      model,
      settings: scaleSettingsFor(input.settings.scalingSetup, model, input.subject.heightM),
      augmenter,
      onProgress: (done, total) => progress('scale_ik', done, total),
    });
  } catch (error) {
    if (!(error instanceof KeypointsMissingError)) throw error;
    throw neutralKeypointsMissing(
      error,
      result.keypoints2D,
      input.videos.map((video) => video.cameraName),
      input.settings.minConfidence,
    );
  }

  progress('outputs', 0, 1);
  await mkdir(input.outDir, { recursive: true });
  const base = join(input.outDir, fileSafe(TRIAL_NAME));
  const scaledModelOsim = fit.scaled.osim;
  const mainSettings = buildMainSettings({
    trialName: TRIAL_NAME,
    kind: 'neutral',
    settings: input.settings,
    subject: input.subject,
    model: modelChoice,
    augmenter: augmenterChoice,
    result,
    isGait: false,
  });
  const scaling = scalingFigures(fit);
  const leftOut = neutralKeypointsLeftOut(
    scaling.keypointsNotSeen,
    scaling.measurementsNotMade,
    result.keypoints2D,
    input.videos.map((video) => video.cameraName),
    input.settings.minConfidence,
  );
  const report: ReportWithModelFit = {
    ...result.report,
    warnings: leftOut ? [...result.report.warnings, leftOut] : result.report.warnings,
    modelFit: { scaling },
  };
  const files: OutputFile[] = [
    { tag: RESULT_TAG.markerData, path: `${base}.trc` },
    { tag: RESULT_TAG.opensimModel, path: `${base}_scaled.osim` },
    { tag: RESULT_TAG.mainSettings, path: `${base}_settings.json` },
    { tag: RESULT_TAG.qualityReport, path: `${base}_report.json` },
  ];
  await Promise.all([
    writeFile(files[0].path, writeTrc(fit.markers, `${TRIAL_NAME}.trc`)),
    writeFile(files[1].path, scaledModelOsim),
    writeFile(files[2].path, `${JSON.stringify(mainSettings, null, 2)}\n`),
    writeFile(files[3].path, `${JSON.stringify(report, null, 2)}\n`),
  ]);
  const window = fit.scaled.measurementWindow;
  const stillFrame = Math.round((window.firstFrame + window.lastFrame) / 2);
  files.push(...(await writeNeutralImages(result, trialClock(result), input.videos, stillFrame, input.outDir)));
  progress('outputs', 1, 1);
  const calibrationErrorsPx = result.cameras.map(
    (camera) => result.report.cameras.find((reported) => reported.name === camera.name)?.calibrationErrorPx ?? null,
  );
  return { cameras: result.cameras, files, scaledModelOsim, calibrationErrorsPx };
}

/**
 * upright_standing_pose: the default keypoint settings, whose marker placer holds every joint near
 * 0 (the subject stands upright, and that pose becomes the model's zero). any_pose: the same
 * measurements (segment lengths do not depend on the pose) with the placer's IK left free, so the
 * markers are placed on whatever pose the subject holds.
 */
function scaleSettingsFor(
  setup: ProcessingSettings['scalingSetup'],
  model: XmlDocument,
  heightM: number,
): ScaleSettings | undefined {
  if (setup === 'upright_standing_pose') return undefined;
  const settings = keypointScaleSettings(readOsimTree(model.root), heightM);
  return { ...settings, placer: settings.placer && { ...settings.placer, coordinateTasks: [] } };
}
