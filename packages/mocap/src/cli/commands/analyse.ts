import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ANALYSIS_KINDS, type AnalysisKind } from '@kinetrace/contracts';
import { analyseTrial, loadAnalysisInput } from '../../analyses/index.ts';
import type { CliCommand } from '../command.ts';

const USAGE = `Usage: kinetrace analyse <${ANALYSIS_KINDS.join('|')}> --model scaled.osim --motion trial.mot [--height M] [--mass KG] --out result.json

Analyses a processed trial: the scaled model and its joint angles, with body positions by forward
kinematics. Writes the analysis result (metrics with mean ± SD and normal ranges, time series,
the analysed window, and for gait the cycle curves) as JSON and prints the metrics.

  --model   the trial's scaled OpenSim model (.osim)
  --motion  the trial's joint angles (.mot)
  --height  subject height, m (gait: stride length is read against it)
  --mass    subject mass, kg
  --out     result JSON`;

function positive(text: string | undefined, option: string, max: number, hint: string): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!(value > 0)) throw new Error(`${option} must be a positive number (got "${text}").`);
  if (value > max) throw new Error(`${option} ${hint} (got ${value}).`);
  return value;
}

export const command: CliCommand = {
  summary: 'Gait, squat, sit-to-stand or drop-jump analysis of a processed trial (writes the result JSON)',
  async run(args) {
    const { values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      options: {
        model: { type: 'string' },
        motion: { type: 'string' },
        height: { type: 'string' },
        mass: { type: 'string' },
        out: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
    if (values.help) {
      console.log(USAGE);
      return 0;
    }
    const kind = positionals[0];
    if (
      positionals.length !== 1 ||
      !ANALYSIS_KINDS.includes(kind as AnalysisKind) ||
      !values.model ||
      !values.motion ||
      !values.out
    ) {
      console.error(USAGE);
      return 1;
    }
    const input = loadAnalysisInput({
      modelXml: readFileSync(values.model, 'utf8'),
      motionText: readFileSync(values.motion, 'utf8'),
      heightM: positive(values.height, '--height', 3, 'is in metres; e.g. --height 1.75'),
      massKg: positive(values.mass, '--mass', 500, 'is in kilograms; e.g. --mass 70'),
    });
    const result = analyseTrial(kind as AnalysisKind, input);
    writeFileSync(values.out, `${JSON.stringify(result)}\n`);
    console.log(result.info_text);
    for (const [key, metric] of Object.entries(result.metrics)) {
      console.log(`  ${key.padEnd(22)}${metric.value} ± ${metric.std} ${metric.unit}`);
    }
    console.log(`Wrote ${values.out}`);
    return 0;
  },
};
