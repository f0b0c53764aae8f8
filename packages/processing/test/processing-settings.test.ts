import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { chooseModel } from '@kinetrace/mocap/session/model-choice';
import { readOsimTree } from '@kinetrace/mocap/model/read-osim';
import { augmenterDirOf, modelPathOf, resolveProcessingSettings, settingChoices } from '../src/processing-settings.ts';

describe("a session's settings as the engine runs them", () => {
  const installDir = mkdtempSync(join(tmpdir(), 'kinetrace-install-'));
  afterAll(() => rmSync(installDir, { recursive: true, force: true }));

  it('maps the defaults: BlazePose full for hrnet at the rate the filter needs, keypoint IK and the default model when nothing is installed', () => {
    const settings = resolveProcessingSettings({}, 60, installDir);
    expect(settings).toMatchObject({
      board: { rows: 4, cols: 5, squareSizeMm: 35, placement: 'Perpendicular' },
      poseModel: 'blazepose-full',
      requestedPoseModel: 'hrnet',
      poseRate: 'filter',
      filterFrequency: 'default',
      scalingSetup: 'upright_standing_pose',
      requestedAugmenter: 'v0.3',
      requestedModel: 'LaiUhlrich2022',
    });
    expect(settings.augmenterDir).toBeUndefined();
    expect(settings.modelPath).toBeUndefined();
  });

  it("honours the session's board, pose model and rate, filter (below half the framerate) and scaling setup", () => {
    const settings = resolveProcessingSettings(
      {
        checkerboard: { rows: 5, cols: 7, squareSize: 40, placement: 'Lying' },
        settings: { pose_model: 'openpose', pose_rate: 'every_frame', filter_frequency: 40, scaling_setup: 'any_pose' },
      },
      60,
      installDir,
    );
    expect(settings).toMatchObject({
      board: { rows: 5, cols: 7, squareSizeMm: 40, placement: 'Lying' },
      poseModel: 'blazepose-lite',
      requestedPoseModel: 'openpose',
      poseRate: 'every_frame',
      filterFrequency: 30,
      scalingSetup: 'any_pose',
    });
  });

  it('runs the shoulder model shipped with Kinetrace for a session that asks for it and has none installed', async () => {
    const bare = mkdtempSync(join(tmpdir(), 'kinetrace-install-'));
    try {
      const settings = resolveProcessingSettings({ settings: { openSimModel: 'LaiUhlrich2022_shoulder' } }, 60, bare);
      expect(settings).toMatchObject({ requestedModel: 'LaiUhlrich2022_shoulder' });
      expect(settings.modelPath).toBeUndefined();
      // What processNeutral scales: the engine's choice for these settings.
      const { model, choice } = await chooseModel(settings);
      expect(choice).toMatchObject({ requested: 'LaiUhlrich2022_shoulder', used: 'LaiUhlrich2022_shoulder' });
      const osim = readOsimTree(model.root);
      expect(osim.bodies.map((body) => body.name)).toEqual(
        expect.arrayContaining(['scapulaPhantom_r', 'scapulaPhantom_l']),
      );
      expect(osim.coordinates.map((coordinate) => coordinate.name)).toContain('sh_elev_r');
    } finally {
      rmSync(bare, { recursive: true, force: true });
    }
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

  it('tells Advanced Settings what each choice runs: the BlazePose model per name, and whether its files are installed', () => {
    const bare = mkdtempSync(join(tmpdir(), 'kinetrace-install-'));
    try {
      expect(settingChoices(bare)).toEqual({
        pose_model: [
          { value: 'hrnet', label: 'HRNet (accurate)', runs: 'BlazePose full', installed: true },
          { value: 'openpose', label: 'OpenPose (fast)', runs: 'BlazePose lite', installed: true },
        ],
        openSimModel: [
          {
            value: 'LaiUhlrich2022',
            label: 'Full body',
            runs: 'LaiUhlrich2022 (shipped with Kinetrace)',
            installed: true,
          },
          {
            value: 'LaiUhlrich2022_shoulder',
            label: 'Full body with shoulder complex',
            runs: 'LaiUhlrich2022_shoulder (shipped with Kinetrace)',
            installed: true,
          },
        ],
        augmenter_model: [
          { value: 'v0.3', label: 'v0.3 (latest)', runs: 'IK on the video keypoints', installed: false },
          { value: 'v0.2', label: 'v0.2', runs: 'IK on the video keypoints', installed: false },
        ],
      });
    } finally {
      rmSync(bare, { recursive: true, force: true });
    }
    // installDir holds the v0.2 weights and the shoulder model since the test before.
    const installed = settingChoices(installDir);
    expect(installed.augmenter_model.map((choice) => [choice.value, choice.installed, choice.runs])).toEqual([
      ['v0.3', false, 'IK on the video keypoints'],
      ['v0.2', true, 'the v0.2 augmenter weights (installed)'],
    ]);
    expect(installed.openSimModel.map((choice) => [choice.value, choice.installed, choice.runs])).toEqual([
      ['LaiUhlrich2022', true, 'LaiUhlrich2022 (shipped with Kinetrace)'],
      ['LaiUhlrich2022_shoulder', true, 'LaiUhlrich2022_shoulder.osim (installed)'],
    ]);
  });
});
