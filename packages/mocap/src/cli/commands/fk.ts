import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { readStorage } from '../../formats/mot.ts';
import { KinematicModel } from '../../model/kinematic-model.ts';
import { coordinatesFromMotion } from '../../model/motion.ts';
import { readOsim } from '../../model/read-osim.ts';
import { formatVisualizerJson, visualizerTransforms } from '../../model/visualizer-json.ts';
import type { CliCommand } from '../command.ts';
import { stageProgress } from '../progress.ts';

const USAGE = `Usage: kinetrace fk --model M.osim --motion R.mot --out visualizer.json

Forward kinematics: poses every body of the model for each frame of the motion and writes
OpenCap's visualizer JSON (per body and frame: translation in m, body-fixed XYZ rotation in rad).

  --model   OpenSim model (.osim)
  --motion  coordinates over time (.mot or .sto, degrees or radians as its header says)
  --out     output JSON`;

export const command: CliCommand = {
  summary: 'Forward kinematics of an OpenSim model and a .mot motion (writes the visualizer JSON)',
  async run(args) {
    const { values } = parseArgs({
      args,
      options: {
        model: { type: 'string' },
        motion: { type: 'string' },
        out: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
    if (values.help) {
      console.log(USAGE);
      return 0;
    }
    if (!values.model || !values.motion || !values.out) {
      console.error(USAGE);
      return 1;
    }
    const model = new KinematicModel(readOsim(readFileSync(values.model, 'utf8')));
    const trajectories = coordinatesFromMotion(model, readStorage(readFileSync(values.motion, 'utf8')));
    const transforms = visualizerTransforms(model, trajectories, stageProgress('Forward kinematics'));
    writeFileSync(values.out, formatVisualizerJson(transforms));
    console.log(
      `Posed ${Object.keys(transforms.bodies).length} bodies over ${transforms.time.length} frames. Wrote ${values.out}`,
    );
    return 0;
  },
};
