import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { KEYPOINT_SETS, type KeypointSetName } from '@kinetrace/contracts';
import { POSE_MODEL_NAMES, type PoseModelName } from '../../pose/pose-model.ts';
import { processFolder, type ProcessedTrial } from '../../pipeline/process-folder.ts';
import { ProcessingError } from '../../pipeline/processing-error.ts';
import type { MainSettings } from '../../session/main-settings.ts';
import { RESULT_TAG } from '../../session/result-tags.ts';
import type { SessionStage } from '../../session/types.ts';
import type { CliCommand } from '../command.ts';
import { stageProgress } from '../progress.ts';

const USAGE = `Usage: kinetrace process <folder> [--out DIR] [--trial NAME] [--model M] [--filter F] [--workers N]
                         [--keypoints DIR] [--keypoint-set SET] [--fps HZ]

Markerless motion capture of a folder of videos, the chain the app runs: calibration (a camera
file, or one checkerboard video per camera), the neutral (or static) trial (3D keypoints, the model
scaled to the subject), then every other trial (3D keypoints, inverse kinematics). Writes to
<folder>/output/<trial>/: <trial>.mot (joint angles, degrees), <trial>_ik.json, <trial>.trc,
<trial>.osim, <trial>_visualizer.json, one synchronised video per camera, <trial>_settings.json
and <trial>_report.json. Without a neutral or static trial: 3D keypoints only (.trc, JSON, report).
Folder layout and settings: packages/mocap/docs/process.md.

  <folder>/videos/<camera>/<trial>.mp4 (neutral.mp4 and the movement trials), or
  <folder>/videos/<camera>.mp4 (one trial, 3D keypoints only)
  <folder>/keypoints/<camera>/ (OpenPose files, one per frame) or <camera>.json (Kinetrace keypoints),
    or <camera>/<trial>/ and <camera>/<trial>.json: 2D keypoints used instead of detecting them
  <folder>/calibration/<cameras file> (Qualisys .qca.txt, ...) or <camera>.mp4 board videos
  <folder>/settings.json (optional: board, subject, scalingSetup, model, augmenter, ...)

  --out      output folder (default <folder>/output)
  --trial    process only this trial
  --model    pose model: ${POSE_MODEL_NAMES.join(', ')} (default from settings, else blazepose-full)
  --filter   low-pass cutoff: 'default' or Hz (default from settings)
  --workers  pose worker threads (default: one per core)
  --keypoints     folder of 2D keypoints (default <folder>/keypoints), laid out as above
  --keypoint-set  keypoints of the OpenPose files: ${KEYPOINT_SETS.join(', ')} (default from their count)
  --fps           frame rate of keypoints given without a video`;

const STAGE_LABELS: Record<SessionStage, string> = {
  board: 'Finding the board',
  pose: 'Decoding + 2D pose',
  sync: 'Synchronising',
  triangulate: 'Triangulating',
  filter: 'Filtering',
  scale_ik: 'Scaling + IK',
  outputs: 'Writing outputs',
};

/** One progress bar per stage of a trial, started when its stage reports first, showing the percentage of the whole trial. */
function progressBar(): { onTrial: () => void; onProgress: (stage: SessionStage, fraction: number) => void } {
  let bars = new Map<SessionStage, (done: number, total: number) => void>();
  return {
    onTrial: () => (bars = new Map()),
    onProgress: (stage, fraction) => {
      if (!bars.has(stage)) {
        // A bar left below 100 % ends its line before the next stage's starts.
        if (bars.size > 0 && process.stderr.isTTY) process.stderr.write('\n');
        bars.set(stage, stageProgress(STAGE_LABELS[stage]));
      }
      bars.get(stage)!(Math.round(fraction * 100), 100);
    },
  };
}

/** What the trial's main_settings says was used for the model and the augmenter, and why. */
function modelLines(trial: ProcessedTrial): string[] {
  const file = trial.files.find((output) => output.tag === RESULT_TAG.mainSettings);
  if (!file) return [];
  const settings = JSON.parse(readFileSync(file.path, 'utf8')) as MainSettings;
  return [
    `  model: ${settings.openSimModel.used} (${settings.openSimModel.reason})`,
    `  augmenter: ${settings.augmenter.used} (${settings.augmenter.reason})`,
  ];
}

const TRIAL_KINDS: Record<ProcessedTrial['kind'], string> = {
  neutral: 'neutral, model scaled',
  movement: 'joint angles',
  keypoints: '3D keypoints only',
};

export const command: CliCommand = {
  summary:
    'Process a folder of videos: calibration, neutral (scaled model), movement trials (.mot, .trc, .osim, viewer JSON)',
  async run(args) {
    const { values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      options: {
        out: { type: 'string' },
        trial: { type: 'string' },
        model: { type: 'string' },
        filter: { type: 'string' },
        workers: { type: 'string' },
        keypoints: { type: 'string' },
        'keypoint-set': { type: 'string' },
        fps: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
    if (values.help) {
      console.log(USAGE);
      return 0;
    }
    if (positionals.length !== 1) {
      console.error(USAGE);
      return 1;
    }
    if (values.model !== undefined && !(POSE_MODEL_NAMES as readonly string[]).includes(values.model)) {
      console.error(`Unknown pose model "${values.model}": choose one of ${POSE_MODEL_NAMES.join(', ')}.`);
      return 1;
    }
    const workers = values.workers === undefined ? undefined : Number(values.workers);
    if (workers !== undefined && !(Number.isInteger(workers) && workers > 0)) {
      console.error(`--workers must be a positive whole number, got "${values.workers}".`);
      return 1;
    }
    const keypointSet = values['keypoint-set'];
    if (keypointSet !== undefined && !(KEYPOINT_SETS as readonly string[]).includes(keypointSet)) {
      console.error(`Unknown keypoint set "${keypointSet}": choose one of ${KEYPOINT_SETS.join(', ')}.`);
      return 1;
    }
    const fps = values.fps === undefined ? undefined : Number(values.fps);
    if (fps !== undefined && !(Number.isFinite(fps) && fps > 0)) {
      console.error(`--fps must be a positive number of frames per second, got "${values.fps}".`);
      return 1;
    }
    const filter =
      values.filter === undefined ? undefined : values.filter === 'default' ? 'default' : Number(values.filter);

    const folder = resolve(positionals[0]);
    const bar = progressBar();
    const startedMs = performance.now();
    try {
      const trials = await processFolder(folder, {
        outDir: values.out ? resolve(values.out) : undefined,
        trial: values.trial,
        poseModel: values.model as PoseModelName | undefined,
        filterFrequency: filter,
        workers,
        keypointsDir: values.keypoints ? resolve(values.keypoints) : undefined,
        keypointSet: keypointSet as KeypointSetName | undefined,
        keypointsFps: fps,
        onTrial: (name, index, count) => {
          bar.onTrial();
          process.stderr.write(`${process.stderr.isTTY ? '\n' : ''}Trial ${index + 1}/${count}: ${name}\n`);
        },
        onProgress: bar.onProgress,
      });
      if (process.stderr.isTTY) process.stderr.write('\n');
      for (const trial of trials) {
        const { report } = trial;
        const lines = [
          `${trial.name} (${TRIAL_KINDS[trial.kind]}): ${report.frameCount} frames at ${report.frameRateHz.toFixed(2)} Hz (${report.durationS.toFixed(2)} s), ${report.framesWithoutPerson} without a person.`,
          `  reprojection error: median ${report.reprojectionErrorPx?.medianPx.toFixed(1) ?? '-'} px`,
          ...report.cameras.map(
            (camera) =>
              `  ${camera.name}: sync ${camera.sync.isReference ? 'reference' : `${(camera.sync.offsetS * 1000).toFixed(1)} ms (lag ${camera.sync.lagFrames.toFixed(2)} frames, confidence ${camera.sync.confidence.toFixed(2)})`}, reprojection median ${camera.reprojectionErrorPx?.medianPx.toFixed(1) ?? '-'} px`,
          ),
          ...modelLines(trial),
          ...report.warnings.map((warning) => `  warning: ${warning}`),
          `  wrote ${trial.files.map((file) => file.path).join(', ')}`,
        ];
        console.log(lines.join('\n'));
      }
      const frames = trials.reduce((sum, trial) => sum + trial.cameraFrames, 0);
      const seconds = (performance.now() - startedMs) / 1000;
      console.log(
        `Processed ${trials.length} trial(s), ${frames} camera frames in ${seconds.toFixed(1)} s (${(frames / seconds).toFixed(1)} camera frames/s).`,
      );
      return 0;
    } catch (error) {
      if (process.stderr.isTTY) process.stderr.write('\n');
      if (error instanceof ProcessingError) {
        console.error(`kinetrace process: ${error.message} [${error.code}]`);
        return 2;
      }
      throw error;
    }
  },
};
