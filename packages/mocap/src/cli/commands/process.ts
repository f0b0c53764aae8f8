import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { POSE_MODEL_NAMES, type PoseModelName } from '../../pose/pose-model.ts';
import { processFolder } from '../../pipeline/process-folder.ts';
import { ProcessingError } from '../../pipeline/processing-error.ts';
import type { PipelineStage } from '../../pipeline/stages.ts';
import type { CliCommand } from '../command.ts';
import { stageProgress } from '../progress.ts';

const USAGE = `Usage: kinetrace process <folder> [--out DIR] [--trial NAME] [--model M] [--filter F] [--workers N]

Markerless motion capture of a folder of videos: 2D pose in every video, synchronisation of the
cameras, triangulation and filtering. Writes, per trial, <trial>.trc (3D keypoints, metres, y up),
<trial>_keypoints.json and <trial>_report.json (calibration, sync and reprojection quality) to
<folder>/output/<trial>/. Folder layout and settings: packages/mocap/docs/process.md.

  <folder>/videos/<camera>.mp4 (one trial) or <folder>/videos/<camera>/<trial>.mp4 (several)
  <folder>/calibration/<cameras file> (Qualisys .qca.txt, ...)
  <folder>/settings.json (optional)

  --out      output folder (default <folder>/output)
  --trial    process only this trial
  --model    pose model: ${POSE_MODEL_NAMES.join(', ')} (default from settings, else blazepose-full)
  --filter   low-pass cutoff: 'default' or Hz (default from settings)
  --workers  pose worker threads (default: one per core)`;

const STAGE_LABELS: Record<PipelineStage, string> = {
  pose: 'Decoding + 2D pose',
  sync: 'Synchronising',
  triangulate: 'Triangulating',
  filter: 'Filtering',
  outputs: 'Writing outputs',
};

/** One progress bar per pipeline stage, each started when its stage reports first. */
function progressBar(): (stage: PipelineStage, done: number, total: number) => void {
  const bars = new Map<PipelineStage, (done: number, total: number) => void>();
  return (stage, done, total) => {
    if (!bars.has(stage)) bars.set(stage, stageProgress(STAGE_LABELS[stage]));
    bars.get(stage)!(done, total);
  };
}

export const command: CliCommand = {
  summary: 'Process a folder of videos into 3D keypoints (.trc), keypoint JSON and a quality report',
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
    const filter = values.filter === undefined ? undefined : values.filter === 'default' ? 'default' : Number(values.filter);

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
        onTrial: (name, index, count) => process.stderr.write(`${process.stderr.isTTY ? '\n' : ''}Trial ${index + 1}/${count}: ${name}\n`),
        onProgress: bar,
      });
      if (process.stderr.isTTY) process.stderr.write('\n');
      for (const trial of trials) {
        const { report } = trial;
        const lines = [
          `${trial.name}: ${report.frameCount} frames at ${report.frameRateHz.toFixed(2)} Hz (${report.durationS.toFixed(2)} s), ${report.framesWithoutPerson} without a person.`,
          `  reprojection error: median ${report.reprojectionErrorPx?.medianPx.toFixed(1) ?? '-'} px`,
          ...report.cameras.map(
            (camera) =>
              `  ${camera.name}: sync ${camera.sync.isReference ? 'reference' : `${(camera.sync.offsetS * 1000).toFixed(1)} ms (lag ${camera.sync.lagFrames.toFixed(2)} frames, confidence ${camera.sync.confidence.toFixed(2)})`}, reprojection median ${camera.reprojectionErrorPx?.medianPx.toFixed(1) ?? '-'} px`,
          ),
          ...report.warnings.map((warning) => `  warning: ${warning}`),
          `  wrote ${trial.files.trc}, ${trial.files.keypointsJson}, ${trial.files.report}`,
        ];
        console.log(lines.join('\n'));
      }
      const frames = trials.reduce((sum, trial) => sum + trial.cameraFrames, 0);
      const seconds = (performance.now() - startedMs) / 1000;
      console.log(`Processed ${trials.length} trial(s), ${frames} camera frames in ${seconds.toFixed(1)} s (${(frames / seconds).toFixed(1)} camera frames/s).`);
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
