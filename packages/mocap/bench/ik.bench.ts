/**
 * Inverse-kinematics speed, single thread: frames solved per second on real marker trials with
 * full OpenSim models (gait2354 walking, Hamner running with arms, an OpenCap session on its
 * LaiArnold model with the 43 OpenCap markers, OpenCap's LaiUhlrich2022), and Kinetrace's default model on video
 * keypoints, by plain least squares and with the keypoint settings (weights, priors, robust loss,
 * continuity). Each trial is solved once to warm the JIT, then timed over repeats.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createDefaultModel } from '../src/default-model/default-model.ts';
import { readIkSetup } from '../src/formats/ik-setup.ts';
import { readTrc } from '../src/formats/trc.ts';
import type { IkSettings } from '../src/ik/ik-problem.ts';
import { solveInverseKinematics } from '../src/ik/inverse-kinematics.ts';
import { ikTasksFromSetup } from '../src/ik/setup-tasks.ts';
import { KinematicModel } from '../src/model/kinematic-model.ts';
import type { OsimModel } from '../src/model/osim-model.ts';
import { keypointIkSettings } from '../src/model-fitting/fit-neutral.ts';
import { readOsim } from '../src/model/read-osim.ts';

const dataDir = resolve(fileURLToPath(new URL('../../../../shared/data', import.meta.url)));
const at = (path: string) => resolve(dataDir, path);
const openCapSession =
  'opencap_outputs/opencap-processing@e94e44aeba/ActivityAnalyses/Data/03284efb-2244-4a48-aec9-abc34afdffc8';

interface Case {
  name: string;
  files: string[];
  model: () => OsimModel;
  markers: string;
  setup?: string;
  settings?: () => IkSettings;
}

const cases: Case[] = [
  {
    name: 'gait2354 walking (23 coordinates, 31 markers)',
    files: [
      'opensim_gait/Pipelines/Gait2354_Simbody/OutputReference/subject01_simbody.osim',
      'opensim_gait/Pipelines/Gait2354_Simbody/subject01_walk1.trc',
      'opensim_gait/Pipelines/Gait2354_Simbody/subject01_Setup_IK.xml',
    ],
    model: () =>
      readOsim(
        readFileSync(at('opensim_gait/Pipelines/Gait2354_Simbody/OutputReference/subject01_simbody.osim'), 'utf8'),
      ),
    markers: 'opensim_gait/Pipelines/Gait2354_Simbody/subject01_walk1.trc',
    setup: 'opensim_gait/Pipelines/Gait2354_Simbody/subject01_Setup_IK.xml',
  },
  {
    name: 'Hamner running (37 coordinates, 37 markers)',
    files: [
      'opensim_gait/Pipelines/Hamner/outputReference/subject02_registered.osim',
      'opensim_gait/Pipelines/Hamner/subject02_running.trc',
      'opensim_gait/Pipelines/Hamner/Setup_IK.xml',
    ],
    model: () =>
      readOsim(readFileSync(at('opensim_gait/Pipelines/Hamner/outputReference/subject02_registered.osim'), 'utf8')),
    markers: 'opensim_gait/Pipelines/Hamner/subject02_running.trc',
    setup: 'opensim_gait/Pipelines/Hamner/Setup_IK.xml',
  },
  {
    name: 'OpenCap session, LaiArnold/LaiUhlrich model (41 coordinates, 43 OpenCap markers)',
    files: [
      `${openCapSession}/OpenSimData/Model/LaiArnoldModified2017_poly_withArms_weldHand_scaled.osim`,
      `${openCapSession}/MarkerData/walk.trc`,
      'opencap_outputs/opencap-core@d5a5258954/opensimPipeline/IK/Setup_IK.xml',
    ],
    model: () =>
      readOsim(
        readFileSync(
          at(`${openCapSession}/OpenSimData/Model/LaiArnoldModified2017_poly_withArms_weldHand_scaled.osim`),
          'utf8',
        ),
      ),
    markers: `${openCapSession}/MarkerData/walk.trc`,
    setup: 'opencap_outputs/opencap-core@d5a5258954/opensimPipeline/IK/Setup_IK.xml',
  },
  {
    // OpenCap's example LaiUhlrich2022 scaled model has no trial of its own here: it tracks the session's
    // markers (another subject, so larger errors), which times the model and marker set all the same.
    name: 'LaiUhlrich2022 scaled (35 coordinates, 43 OpenCap markers) on the OpenCap session markers',
    files: [
      'opencap_outputs/opencap-processing@eb5fa1d90a/Examples/ExampleData/LaiUhlrich2022_scaled.osim',
      `${openCapSession}/MarkerData/walk.trc`,
      'opencap_outputs/opencap-core@d5a5258954/opensimPipeline/IK/Setup_IK.xml',
    ],
    model: () =>
      readOsim(
        readFileSync(
          at('opencap_outputs/opencap-processing@eb5fa1d90a/Examples/ExampleData/LaiUhlrich2022_scaled.osim'),
          'utf8',
        ),
      ),
    markers: `${openCapSession}/MarkerData/walk.trc`,
    setup: 'opencap_outputs/opencap-core@d5a5258954/opensimPipeline/IK/Setup_IK.xml',
  },
];

cases.push(
  {
    name: 'Kinetrace default model on video keypoints (squats, unscaled), least squares',
    files: ['marker_enhancer/test_data/squats.trc'],
    model: () => createDefaultModel({ heightM: 1.75 }),
    markers: 'marker_enhancer/test_data/squats.trc',
  },
  {
    name: 'Kinetrace default model on video keypoints (squats, unscaled), keypoint settings',
    files: ['marker_enhancer/test_data/squats.trc'],
    model: () => createDefaultModel({ heightM: 1.75 }),
    markers: 'marker_enhancer/test_data/squats.trc',
    settings: () => keypointIkSettings(createDefaultModel({ heightM: 1.75 })),
  },
);

for (const benchCase of cases) {
  const missing = benchCase.files.filter((file) => !existsSync(at(file)));
  if (missing.length > 0) {
    console.log(`ik ${benchCase.name}: skipped, reference data missing: ${missing.join(', ')} under ${dataDir}`);
    continue;
  }
  const model = new KinematicModel(benchCase.model());
  const markers = readTrc(readFileSync(at(benchCase.markers), 'utf8'));
  const tasks: IkSettings = benchCase.setup
    ? ikTasksFromSetup(model, readIkSetup(readFileSync(at(benchCase.setup), 'utf8')))
    : (benchCase.settings?.() ?? {});
  const warmUp = solveInverseKinematics(model, markers, tasks);
  const frames = warmUp.trajectories.timesS.length;
  const repeats = Math.max(1, Math.ceil(1500 / frames));
  const start = performance.now();
  const cpuStart = process.cpuUsage();
  let iterations = 0;
  for (let r = 0; r < repeats; r++) {
    const result = solveInverseKinematics(model, markers, tasks);
    iterations += result.errors.iterations.reduce((a, b) => a + b, 0);
  }
  const seconds = (performance.now() - start) / 1000;
  // CPU time as well: the machine is shared, and wall time counts the waits for a core.
  const cpu = process.cpuUsage(cpuStart);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  const meanRmsMm = (1000 * warmUp.errors.rmsM.reduce((a, b) => a + b, 0)) / frames;
  console.log(
    `ik ${benchCase.name}: ${((frames * repeats) / seconds).toFixed(0)} frames/s wall, ${((frames * repeats) / cpuSeconds).toFixed(0)} frames/s per CPU second (${frames} frames x ${repeats}, ${seconds.toFixed(2)} s, ${(iterations / (frames * repeats)).toFixed(1)} iterations/frame, marker RMS ${meanRmsMm.toFixed(1)} mm)`,
  );
}
console.log(`peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
