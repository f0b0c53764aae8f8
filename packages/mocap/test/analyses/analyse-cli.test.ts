import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { analysisResultSchema } from '@kinetrace/contracts';
import { afterAll, expect, it } from 'vitest';
import { describeWithData, referencePath } from '../reference-data.ts';

const cli = fileURLToPath(new URL('../../bin/kinetrace.mjs', import.meta.url));
const SESSION =
  'opencap_outputs/opencap-processing@e94e44aeba/ActivityAnalyses/Data/03284efb-2244-4a48-aec9-abc34afdffc8/OpenSimData';
const MODEL = `${SESSION}/Model/LaiArnoldModified2017_poly_withArms_weldHand_scaled.osim`;
const MOTION = `${SESSION}/Kinematics/walk.mot`;
const outDir = mkdtempSync(join(tmpdir(), 'kinetrace-analyse-'));
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

const run = (args: string[]) => promisify(execFile)(process.execPath, [cli, 'analyse', ...args]);

describeWithData('kinetrace analyse', [MODEL, MOTION], () => {
  it('writes the gait result of a processed trial as JSON in the analysis result shape', async () => {
    const out = join(outDir, 'result.json');
    const { stdout } = await run([
      'gait',
      '--model',
      referencePath(MODEL),
      '--motion',
      referencePath(MOTION),
      '--height',
      '1.86',
      '--out',
      out,
    ]);
    expect(stdout).toMatch(/^Overground walking at 1\.\d\d m\/s: 4 complete gait cycles/);
    expect(stdout).toMatch(/gait_speed\s+1\.\d+ ± 0\.\d+ m\/s/);
    const result = analysisResultSchema.parse(JSON.parse(readFileSync(out, 'utf8')));
    expect(result.analysis).toBe('gait');
    expect(Object.keys(result.metrics).sort()).toEqual(
      [
        'cadence',
        'double_support',
        'gait_speed',
        'stance_time',
        'step_length_l',
        'step_length_r',
        'step_length_symmetry',
        'step_width',
        'stride_length',
        'swing_time',
      ].sort(),
    );
    expect(result.curves.map((c) => c.quantity)).toContain('knee_angle_l');
  });

  it('fails with the reason when the trial is not that movement, and shows the usage on a wrong kind', async () => {
    const out = join(outDir, 'rises.json');
    await expect(
      run(['sit-to-stand', '--model', referencePath(MODEL), '--motion', referencePath(MOTION), '--out', out]),
    ).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringMatching(
        /^kinetrace analyse: No rise from sitting found: the pelvis never went up by 15 cm or more\./,
      ),
    });
    await expect(
      run(['running', '--model', referencePath(MODEL), '--motion', referencePath(MOTION), '--out', out]),
    ).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('Usage: kinetrace analyse <gait|squat|sit-to-stand|drop-jump>'),
    });
  });
});
