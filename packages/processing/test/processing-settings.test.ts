import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { augmenterDirOf, modelPathOf, resolveProcessingSettings } from '../src/processing-settings.ts';

describe("a session's settings as the engine runs them", () => {
  const installDir = mkdtempSync(join(tmpdir(), 'kinetrace-install-'));
  afterAll(() => rmSync(installDir, { recursive: true, force: true }));

  it('maps the defaults: BlazePose full for hrnet, keypoint IK and the default model when nothing is installed', () => {
    const settings = resolveProcessingSettings({}, 60, installDir);
    expect(settings).toMatchObject({
      board: { rows: 4, cols: 5, squareSizeMm: 35, placement: 'Perpendicular' },
      poseModel: 'blazepose-full',
      requestedPoseModel: 'hrnet',
      filterFrequency: 'default',
      scalingSetup: 'upright_standing_pose',
      requestedAugmenter: 'v0.3',
      requestedModel: 'LaiUhlrich2022',
    });
    expect(settings.augmenterDir).toBeUndefined();
    expect(settings.modelPath).toBeUndefined();
  });

  it("honours the session's board, pose model, filter (below half the framerate) and scaling setup", () => {
    const settings = resolveProcessingSettings(
      {
        checkerboard: { rows: 5, cols: 7, squareSize: 40, placement: 'Lying' },
        settings: { pose_model: 'openpose', filter_frequency: 40, scaling_setup: 'any_pose' },
      },
      60,
      installDir,
    );
    expect(settings).toMatchObject({
      board: { rows: 5, cols: 7, squareSizeMm: 40, placement: 'Lying' },
      poseModel: 'blazepose-lite',
      requestedPoseModel: 'openpose',
      filterFrequency: 30,
      scalingSetup: 'any_pose',
    });
  });

  it('uses augmenter weights and a model an operator installed under the data folder', () => {
    mkdirSync(augmenterDirOf(installDir, 'v0.2'), { recursive: true });
    mkdirSync(join(installDir, 'models'), { recursive: true });
    writeFileSync(modelPathOf(installDir, 'LaiUhlrich2022_shoulder'), '<OpenSimDocument/>');
    const settings = resolveProcessingSettings(
      { settings: { augmenter_model: 'v0.2', openSimModel: 'LaiUhlrich2022_shoulder' } },
      60,
      installDir,
    );
    expect(settings.augmenterDir).toBe(join(installDir, 'augmenters', 'v0.2'));
    expect(settings.modelPath).toBe(join(installDir, 'models', 'LaiUhlrich2022_shoulder.osim'));
  });
});
