import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadMarkerAugmenter } from '../../augmenter/load-augmenter.ts';
import { readMarkerSet, readScaleSetup } from '../../formats/scale-setup.ts';
import { readTrc } from '../../formats/trc.ts';
import { DEFAULT_MODEL, isModelName, namedModelDocument } from '../../default-model/named-models.ts';
import { fitNeutral } from '../../model-fitting/fit-neutral.ts';
import { addMarkerSet } from '../../model/osim-markers.ts';
import { readOsimTree } from '../../model/read-osim.ts';
import { parseXmlDocument, type XmlDocument } from '../../model/xml-tree.ts';
import { scaleSettingsFromSetup, type ScaleSettings } from '../../scaling/scale-model-to-subject.ts';
import type { CliCommand } from '../command.ts';
import { stageProgress } from '../progress.ts';

const USAGE = `Usage: kinetrace scale --static S.trc --mass KG --height M --out scaled.osim [--model M.osim] [--setup Scale.xml]
                      [--marker-set MARKERS.xml] [--augmenter DIR] [--time-range START,END]

Scales a model to a subject from a static (neutral) trial, as OpenSim's ScaleTool does: segment
scale factors from marker-pair distances, the model scaled (masses to the subject's, muscles with
their paths), then the markers placed on the static pose. Prints the scale factors and the marker
errors, and writes the scaled model: the input .osim with its values scaled and all else kept.

  --static      static trial markers (.trc); optional when the setup names its marker_file
  --mass        subject mass, kg (optional when the setup gives it)
  --height      subject height, m
  --out         scaled model (.osim)
  --model       OpenSim model (.osim), or the name of a model Kinetrace ships: LaiUhlrich2022 (the default,
                OpenCap's model with muscles), LaiUhlrich2022_shoulder, Kinetrace_default_fullbody (ours,
                no muscles); a shipped model is scaled from video keypoint distances in the stillest second
  --setup       OpenSim scale setup (.xml): measurements, manual scales, time ranges, marker placer tasks;
                its model_file and marker_set_file are used when present
  --marker-set  OpenSim marker set (.xml) replacing the model's markers of the same names (overrides the setup's)
  --augmenter   folder of OpenCap-style augmenter weights (body/ and arm/): adds the predicted markers
  --time-range  seconds of the trial where the subject stands still (overrides the setup and the stillest second)`;

function parseTimeRange(text: string | undefined): [number, number] | undefined {
  if (text === undefined) return undefined;
  const parts = text.split(',').map(Number);
  if (parts.length !== 2 || parts.some((v) => !Number.isFinite(v)) || parts[1] < parts[0]) {
    throw new Error(`--time-range must be two increasing numbers of seconds, e.g. 0,1 (got "${text}").`);
  }
  return [parts[0], parts[1]];
}

function positiveNumber(text: string | undefined, option: string): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!(value > 0)) throw new Error(`${option} must be a positive number (got "${text}").`);
  return value;
}

export const command: CliCommand = {
  summary: 'Scale a model (default or .osim) to a subject from a static trial (writes the scaled .osim)',
  async run(args) {
    const { values } = parseArgs({
      args,
      options: {
        model: { type: 'string' },
        static: { type: 'string' },
        setup: { type: 'string' },
        mass: { type: 'string' },
        height: { type: 'string' },
        out: { type: 'string' },
        augmenter: { type: 'string' },
        'marker-set': { type: 'string' },
        'time-range': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
    if (values.help) {
      console.log(USAGE);
      return 0;
    }

    const setup = values.setup ? readScaleSetup(readFileSync(values.setup, 'utf8')) : undefined;
    const setupDir = values.setup ? dirname(resolve(values.setup)) : '.';
    const fromSetup = (file: string | undefined) => (file ? resolve(setupDir, file) : undefined);
    const staticPath = values.static ?? fromSetup(setup?.scaler.markerFile);
    const massKg = positiveNumber(values.mass, '--mass') ?? setup?.massKg;
    const heightM = positiveNumber(values.height, '--height');
    if (!staticPath || massKg === undefined || heightM === undefined || !values.out) {
      console.error(USAGE);
      return 1;
    }
    if (heightM > 3) throw new Error(`--height is in metres (got ${heightM}); e.g. --height 1.75.`);

    const modelPath = values.model ?? fromSetup(setup?.modelFile);
    let model: XmlDocument | undefined;
    if (modelPath && isModelName(modelPath) && !existsSync(modelPath)) {
      model = namedModelDocument(modelPath, { heightM });
    } else if (modelPath) {
      model = parseXmlDocument(readFileSync(modelPath, 'utf8'));
      const markerSetPath = values['marker-set'] ?? fromSetup(setup?.markerSetFile);
      // GenericModelMaker: the setup's marker set replaces the model's markers of the same name and adds the others.
      if (markerSetPath && existsSync(markerSetPath))
        addMarkerSet(model, readMarkerSet(readFileSync(markerSetPath, 'utf8')));
    } else if (setup) {
      throw new Error('The scale setup names no model_file; pass --model, or omit --setup to scale the default model.');
    }

    const settings: ScaleSettings | undefined =
      setup && model ? scaleSettingsFromSetup(setup, readOsimTree(model.root)) : undefined;
    const augmenter = values.augmenter ? await loadMarkerAugmenter(values.augmenter) : undefined;
    const staticTrial = readTrc(readFileSync(staticPath, 'utf8'));
    const fit = fitNeutral({
      neutral: staticTrial,
      subject: { heightM, massKg },
      model,
      settings,
      augmenter,
      timeRangeS: parseTimeRange(values['time-range']),
      onProgress: stageProgress('Scaling'),
    });
    const { scaled } = fit;

    const window = scaled.measurementWindow;
    const lines = [
      `Model: ${modelPath ?? DEFAULT_MODEL}; subject ${heightM} m, ${massKg} kg`,
      `Measured over ${window.timeRangeS[0].toFixed(3)}–${window.timeRangeS[1].toFixed(3)} s (${window.chosenBy}` +
        `${window.meanExcursionM !== undefined ? `, markers moved ${(window.meanExcursionM * 1000).toFixed(1)} mm RMS` : ''})`,
      'Measurements:',
      ...scaled.measurements.map(
        (m) =>
          `  ${m.name.padEnd(18)} ${Number.isNaN(m.factor) ? 'no marker pair found' : m.factor.toFixed(4)}  (${m.pairs.length} pair(s)${m.skippedPairs.length ? `, skipped ${m.skippedPairs.map((p) => p.join('–')).join(', ')}` : ''})`,
      ),
      'Scale factors (X Y Z):',
      ...[...scaled.scaleFactors].map(([body, f]) => `  ${body.padEnd(12)} ${f.map((v) => v.toFixed(4)).join(' ')}`),
    ];
    if (scaled.placement) {
      const p = scaled.placement;
      const worst = [...p.markerErrors].sort((a, b) => b.errorM - a.errorM).slice(0, 5);
      lines.push(
        `Marker placement: static-pose IK marker error RMS ${(p.rmsErrorM * 100).toFixed(2)} cm, max ${(p.maxErrorM * 100).toFixed(2)} cm; ${p.movedMarkers.length} markers moved onto the measured ones`,
        `  largest: ${worst.map((e) => `${e.name} ${(e.errorM * 100).toFixed(2)} cm`).join(', ')}`,
      );
    }
    writeFileSync(values.out, scaled.osim);
    lines.push(`Wrote ${values.out}`);
    console.log(lines.join('\n'));
    return 0;
  },
};
