import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it, vi } from 'vitest';
import { command } from '../../src/cli/commands/scale.ts';
import { readOsim } from '../../src/model/read-osim.ts';
import { describeWithData, referencePath } from '../reference-data.ts';

const outDir = mkdtempSync(join(tmpdir(), 'kinetrace-scale-'));
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

async function run(args: string[]): Promise<{ code: number; stdout: string }> {
  const printed: string[] = [];
  const log = vi.spyOn(console, 'log').mockImplementation((...parts) => void printed.push(parts.join(' ')));
  const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  try {
    return { code: await command.run(args), stdout: printed.join('\n') };
  } finally {
    log.mockRestore();
    err.mockRestore();
  }
}

describeWithData(
  'kinetrace scale',
  ['marker_enhancer/test_data/squats.trc', 'opensim_gait/Pipelines/Gait2354_Simbody/subject01_Setup_Scale.xml'],
  () => {
    it('scales the default model (LaiUhlrich2022) on a keypoint trial and writes an .osim with the scaled segments', async () => {
      const out = join(outDir, 'default.osim');
      const { code, stdout } = await run([
        '--static',
        referencePath('marker_enhancer/test_data/squats.trc'),
        '--mass',
        '70',
        '--height',
        '1.75',
        '--time-range',
        '0,1',
        '--out',
        out,
      ]);
      expect(code).toBe(0);
      expect(stdout).toMatch(/femur_r\s+1\.\d{4}/);
      expect(stdout).toMatch(/Marker placement: static-pose IK marker error RMS \d+\.\d+ cm/);
      const model = readOsim(readFileSync(out, 'utf8'));
      expect(model.name).toBe('LaiUhlrich2022');
      expect(model.markers.map((m) => m.name)).toContain('RKnee');
    });

    it('scales a shipped model given by name: our own kinematic model', async () => {
      const out = join(outDir, 'ours.osim');
      const trial = referencePath('marker_enhancer/test_data/squats.trc');
      const args = ['--static', trial, '--mass', '70', '--height', '1.75', '--time-range', '0,1', '--out', out];
      const { code, stdout } = await run(['--model', 'Kinetrace_default_fullbody', ...args]);
      expect(code).toBe(0);
      expect(stdout).toContain('Model: Kinetrace_default_fullbody;');
      expect(readOsim(readFileSync(out, 'utf8')).name).toBe('Kinetrace_default_fullbody');
    });

    it('runs an OpenSim setup: model and marker set from the setup, factors printed as OpenSim gives them', async () => {
      const out = join(outDir, 'gait2354.osim');
      const setup = referencePath('opensim_gait/Pipelines/Gait2354_Simbody/subject01_Setup_Scale.xml');
      const model = referencePath('opensim_gait/Models/Gait2354_Simbody/gait2354_simbody.osim');
      const { code, stdout } = await run(['--setup', setup, '--model', model, '--height', '1.8', '--out', out]);
      expect(code).toBe(0);
      expect(stdout).toContain('72.6 kg');
      expect(stdout).toMatch(/femur_r\s+1\.1472 1\.1472 1\.1472/);
      expect(stdout).toMatch(/talus_r\s+1\.1140/);
      expect(readOsim(readFileSync(out, 'utf8')).markers).toHaveLength(39);
    });

    it('refuses a height given in centimetres with a hint', async () => {
      await expect(
        run(['--static', 'x.trc', '--mass', '70', '--height', '175', '--out', join(outDir, 'x.osim')]),
      ).rejects.toThrow(/metres/);
    });
  },
);
