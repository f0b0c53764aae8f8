import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { readIkSetup } from '../../formats/ik-setup.ts';
import { writeStorage } from '../../formats/mot.ts';
import { readTrc } from '../../formats/trc.ts';
import { solveInverseKinematics } from '../../ik/inverse-kinematics.ts';
import { ikTasksFromSetup } from '../../ik/setup-tasks.ts';
import { keypointIkSettings, tracksKeypoints } from '../../model-fitting/fit-neutral.ts';
import { solveTrialIk } from '../../model-fitting/fit-trial.ts';
import { withMidHip } from '../../model-fitting/merge-markers.ts';
import { KinematicModel } from '../../model/kinematic-model.ts';
import { motionFromCoordinates } from '../../model/motion.ts';
import { readOsim } from '../../model/read-osim.ts';
import type { CliCommand } from '../command.ts';
import { stageProgress } from '../progress.ts';

const USAGE = `Usage: kinetrace ik --model M.osim --markers T.trc [--setup IK.xml] --out R.mot [--errors E.sto]

Inverse kinematics: the model's coordinates that best fit the measured markers, frame by frame
(weighted least squares, as OpenSim's IK tool). Writes an OpenSim .mot (rotations in degrees)
and prints the marker errors, per frame and per marker. A model whose markers are all video
keypoints (one of Kinetrace's models scaled by \`kinetrace scale\`), without a setup, is solved as
video keypoints need: keypoint weights, priors for what keypoints cannot see, a robust loss against mis-detected keypoints
and continuity between frames.

  --model    OpenSim model (.osim) with markers; optional when the setup names its model_file
  --markers  marker trajectories (.trc); optional when the setup names its marker_file
  --setup    OpenSim IK setup (.xml): marker weights, coordinate tasks, time range
  --out      output motion (.mot)
  --errors   also write the per-frame marker errors as OpenSim's _ik_marker_errors.sto`;

export const command: CliCommand = {
  summary: 'Inverse kinematics of an OpenSim model on a .trc marker file (writes a .mot)',
  async run(args) {
    const { values } = parseArgs({
      args,
      options: {
        model: { type: 'string' },
        markers: { type: 'string' },
        setup: { type: 'string' },
        out: { type: 'string' },
        errors: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
    if (values.help) {
      console.log(USAGE);
      return 0;
    }
    const setup = values.setup ? readIkSetup(readFileSync(values.setup, 'utf8')) : undefined;
    const setupDir = values.setup ? dirname(resolve(values.setup)) : '.';
    const markersPath = values.markers ?? (setup?.markerFile ? resolve(setupDir, setup.markerFile) : undefined);
    const modelPath = values.model ?? (setup?.modelFile ? resolve(setupDir, setup.modelFile) : undefined);
    if (!modelPath || !markersPath || !values.out) {
      console.error(USAGE);
      return 1;
    }

    const osim = readOsim(readFileSync(modelPath, 'utf8'));
    const model = new KinematicModel(osim);
    const markers = readTrc(readFileSync(markersPath, 'utf8'));
    const onProgress = stageProgress('Inverse kinematics');
    const startedMs = performance.now();
    const result =
      !setup && tracksKeypoints(osim)
        ? solveTrialIk(osim, withMidHip(markers), { ...keypointIkSettings(osim), onProgress })
        : solveInverseKinematics(model, markers, {
            ...(setup ? ikTasksFromSetup(model, setup) : {}),
            timeRangeS: setup?.timeRangeS,
            onProgress,
          });
    const elapsedS = (performance.now() - startedMs) / 1000;
    writeFileSync(values.out, writeStorage(motionFromCoordinates(model, result.trajectories)));
    const { errors } = result;
    const frames = errors.rmsM.length;
    if (values.errors) {
      const table = new Float64Array(frames * 3);
      for (let f = 0; f < frames; f++) table.set([errors.totalSquaredM2[f], errors.rmsM[f], errors.maxM[f]], 3 * f);
      const columnLabels = ['total_squared_error', 'marker_error_RMS', 'marker_error_max'];
      writeFileSync(
        values.errors,
        writeStorage({
          name: 'Model Marker Errors from IK',
          inDegrees: false,
          columnLabels,
          timesS: result.trajectories.timesS,
          values: table,
        }),
      );
    }

    let worstFrame = 0;
    for (let f = 1; f < frames; f++) if (errors.maxM[f] > errors.maxM[worstFrame]) worstFrame = f;
    const meanRmsMm = (1000 * errors.rmsM.reduce((a, b) => a + b, 0)) / Math.max(frames, 1);
    const meanSquared = errors.totalSquaredM2.reduce((a, b) => a + b, 0) / Math.max(frames, 1);
    console.log(
      [
        `Solved ${frames} frames tracking ${result.trackedMarkerNames.length} markers in ${elapsedS.toFixed(2)} s (${(frames / elapsedS).toFixed(0)} frames/s).`,
        `Marker error: RMS ${meanRmsMm.toFixed(1)} mm on average (largest frame RMS ${(1000 * Math.max(...errors.rmsM)).toFixed(1)} mm), total squared error ${meanSquared.toExponential(3)} m^2 per frame on average.`,
        frames > 0
          ? `Largest marker error: ${(1000 * errors.maxM[worstFrame]).toFixed(1)} mm (${errors.worstMarker[worstFrame]}) at t = ${result.trajectories.timesS[worstFrame].toFixed(3)} s.`
          : 'No frame in the time range.',
        `Frames fitted far worse than usual (the next frame started from the last good one): ${errors.poorFit.reduce((a, b) => a + b, 0)}.`,
        'Per marker (RMS / max mm, frames present, frames treated as outliers):',
        ...result.markerErrors.map(
          (m) =>
            `  ${m.name.padEnd(12)} ${(1000 * m.rmsM).toFixed(1).padStart(6)} / ${(1000 * m.maxM).toFixed(1).padStart(6)}  ${m.framesPresent}  ${m.framesDownweighted}`,
        ),
        `Wrote ${[values.out, values.errors].filter(Boolean).join(' and ')}`,
      ].join('\n'),
    );
    return 0;
  },
};
