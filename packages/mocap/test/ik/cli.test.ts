import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it, vi } from 'vitest';
import { command as fk } from '../../src/cli/commands/fk.ts';
import { command as ik } from '../../src/cli/commands/ik.ts';
import { readStorage } from '../../src/formats/mot.ts';
import { describeWithData, referencePath } from '../reference-data.ts';

const gait = 'opensim_gait/Pipelines/Gait2354_Simbody';
const viewer = 'opencap_viewer_fixture';
const outDir = mkdtempSync(join(tmpdir(), 'kinetrace-ik-cli-'));
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

describeWithData(
  'kinetrace ik and fk commands',
  [
    `${gait}/OutputReference/subject01_simbody.osim`,
    `${gait}/subject01_Setup_IK.xml`,
    `${gait}/subject01_walk1.trc`,
    `${viewer}/LaiUhlrich2022.osim`,
    `${viewer}/DJ1_videoAndMocap.mot`,
  ],
  () => {
    it('ik takes the marker file and time range from the setup, writes a degree .mot and prints the marker errors', async () => {
      const out = join(outDir, 'walk_ik.mot');
      const errorsOut = join(outDir, 'walk_ik_marker_errors.sto');
      const log = vi.spyOn(console, 'log').mockImplementation(() => {});
      const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
      const code = await ik.run([
        '--model',
        referencePath(`${gait}/OutputReference/subject01_simbody.osim`),
        '--setup',
        referencePath(`${gait}/subject01_Setup_IK.xml`),
        '--out',
        out,
        '--errors',
        errorsOut,
      ]);
      const printed = log.mock.calls.flat().join('\n');
      log.mockRestore();
      stderr.mockRestore();
      expect(code).toBe(0);
      expect(printed).toMatch(/Solved 73 frames tracking 31 markers/);
      expect(printed).toMatch(/Largest marker error: [\d.]+ mm \(/);
      const motion = readStorage(readFileSync(out, 'utf8'));
      expect(motion.inDegrees).toBe(true);
      expect(motion.timesS[0]).toBeCloseTo(0.4, 6);
      expect(motion.columnLabels).toHaveLength(23);
      // OpenSim's first frame has knee_angle_r = -54.92 degrees.
      expect(motion.values[motion.columnLabels.indexOf('knee_angle_r')]).toBeCloseTo(-54.92, 0);
      const errors = readStorage(readFileSync(errorsOut, 'utf8'));
      expect(errors.columnLabels).toEqual(['total_squared_error', 'marker_error_RMS', 'marker_error_max']);
      expect(errors.timesS).toHaveLength(73);
      // RMS = sqrt(total / markers), and no marker is further off than the largest error.
      expect(errors.values[1]).toBeCloseTo(Math.sqrt(errors.values[0] / 31), 7);
      expect(errors.values[2]).toBeGreaterThanOrEqual(errors.values[1]);
    });

    it('fk writes the visualizer JSON of a model and motion', async () => {
      const out = join(outDir, 'visualizer.json');
      const log = vi.spyOn(console, 'log').mockImplementation(() => {});
      const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
      const code = await fk.run([
        '--model',
        referencePath(`${viewer}/LaiUhlrich2022.osim`),
        '--motion',
        referencePath(`${viewer}/DJ1_videoAndMocap.mot`),
        '--out',
        out,
      ]);
      log.mockRestore();
      stderr.mockRestore();
      expect(code).toBe(0);
      const json = JSON.parse(readFileSync(out, 'utf8'));
      expect(json.time).toHaveLength(86);
      expect(Object.keys(json.bodies)).toHaveLength(22);
      expect(json.bodies.pelvis.translation[0][0]).toBeCloseTo(-0.71266404, 8);
    });

    it('refuses to run without its required options', async () => {
      const error = vi.spyOn(console, 'error').mockImplementation(() => {});
      expect(await ik.run(['--model', 'm.osim'])).toBe(1);
      expect(await fk.run([])).toBe(1);
      expect(error).toHaveBeenCalledWith(expect.stringContaining('Usage: kinetrace'));
      error.mockRestore();
    });
  },
);
