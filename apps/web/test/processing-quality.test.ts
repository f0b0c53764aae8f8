import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { POSE_RATES, RESULT_TAGS, type Session } from '@kinetrace/contracts';
import { writeKinetraceCameras } from '@kinetrace/mocap/camera/formats/kinetrace-json';
import type { MainSettings } from '@kinetrace/mocap/session/main-settings';
import { chooseAugmenter, chooseModel } from '@kinetrace/mocap/session/model-choice';
import { resolveProcessingSettings } from '@kinetrace/processing/processing-settings';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  SCENE_BOARD,
  boardScene,
  renderBoardView,
  writeGrayImage,
} from '../../../packages/mocap/test/calibration/board-in-world.ts';
import {
  callApi,
  eventually,
  makeUser,
  screenshot,
  startSignedIn,
  stopSignedIn,
  trialRow,
  type SignedInBrowser,
} from './browser-harness.ts';
import { walkReport } from './quality-report-fixture.ts';

/** Board errors of the seeded calibration, px: cam01 as a good calibration, cam02 well past the poor limit. */
const BOARD_ERRORS_PX = { cam01: [0.42, 0.95], cam02: [3.1, 3.4] };

/** A processed calibration's per-camera files as processing leaves them (run-trial.ts): a camera file and its board image. */
function calibrationResults(dir: string) {
  return Object.entries(BOARD_ERRORS_PX).flatMap(([name, boardRmsPx], index) => {
    const { world } = boardScene([3.2, 1.1 + 0.3 * index, index === 0 ? -1.2 : 1.4], { name });
    const imagePath = join(dir, `calibration_${name}.jpg`);
    writeGrayImage(renderBoardView(world, SCENE_BOARD), world.imageSize, imagePath);
    const meta = { device_id: `phone-${index + 1}`, camera_name: name };
    return [
      {
        tag: RESULT_TAGS.cameraParameters,
        fileName: `${name}.json`,
        bytes: Buffer.from(writeKinetraceCameras([world], { boardRmsPx, intrinsicsEstimated: true })),
        meta,
      },
      { tag: RESULT_TAGS.calibrationImage, fileName: `calibration_${name}.jpg`, bytes: readFileSync(imagePath), meta },
    ];
  });
}

/**
 * A walking trial's main_settings as processing writes it with nothing installed: the model and augmenter
 * choices are the engine's own (chooseModel, chooseAugmenter on the settings the runner resolves).
 */
async function walkSettings(installDir: string): Promise<MainSettings> {
  const settings = resolveProcessingSettings({}, 60, installDir);
  return {
    format: 'kinetrace-main-settings',
    version: 1,
    trial: 'walk',
    kind: 'movement',
    poseModel: { requested: 'hrnet', used: settings.poseModel },
    openSimModel: (await chooseModel(settings)).choice,
    augmenter: (await chooseAugmenter(settings)).choice,
    filter: { requested: 'default', cutoffHz: 12, applied: true, gait: true },
    scalingSetup: 'upright_standing_pose',
    subject: { heightM: 1.72, massKg: 69 },
    cameras: ['cam01', 'cam02'],
    // The pose model ran on every other frame, as a 12 Hz filter needs (issue 24).
    detectedHz: { cam01: 30, cam02: 30 },
    referenceCamera: 'cam01',
    frameRateHz: 60,
  };
}

const json = (value: unknown) => Buffer.from(`${JSON.stringify(value, null, 2)}\n`);
/** The traffic light a badge shows, inside `scope`. */
const lightIn = (scope: Locator) => scope.locator('[data-light]').first().getAttribute('data-light');

describe('what processing runs and how good its results are, where the user looks (issue 21)', () => {
  let running: SignedInBrowser;
  let page: Page;
  let session: Session;
  const scratch = mkdtempSync(join(tmpdir(), 'kinetrace-quality-'));

  beforeAll(async () => {
    running = await startSignedIn(makeUser('quality'));
    ({ page } = running);
    const { server, token } = running;
    // The operator installed the v0.2 augmenter's weights, and nothing else.
    mkdirSync(join(server.dataDir, 'augmenters', 'v0.2'), { recursive: true });
    [session] = await callApi<Session[]>(server.baseUrl, token, '/sessions/new/');
    await server.seedTrial(session.id, { name: 'calibration', status: 'done', results: calibrationResults(scratch) });
    const emptyInstall = join(scratch, 'install');
    mkdirSync(emptyInstall);
    await server.seedTrial(session.id, {
      name: 'walk',
      status: 'done',
      results: [
        {
          tag: RESULT_TAGS.mainSettings,
          fileName: 'walk_settings.json',
          bytes: json(await walkSettings(emptyInstall)),
        },
        { tag: RESULT_TAGS.qualityReport, fileName: 'walk_report.json', bytes: json(walkReport) },
      ],
    });
  });
  afterAll(async () => {
    await stopSignedIn(running ?? {});
    rmSync(scratch, { recursive: true, force: true });
  });

  it("the calibration step shows each camera's board image and error, and says the calibration is poor", async () => {
    await page.goto(`/${session.id}/calibration`);
    const result = page.getByRole('region', { name: 'Calibration result' });
    for (const camera of ['cam01', 'cam02']) {
      await eventually(() =>
        result
          .getByRole('img', { name: `Calibration image, ${camera}` })
          .evaluate((image) => (image as HTMLImageElement).naturalWidth),
      ).toBe(1280);
    }
    const cameraCard = (camera: string) => result.locator(`[data-camera="${camera}"]`);
    await expect(cameraCard('cam01').getByTestId('board-error').textContent()).resolves.toBe('Board error 0.42 px');
    await expect(lightIn(cameraCard('cam01'))).resolves.toBe('green');
    await expect(cameraCard('cam02').getByTestId('board-error').textContent()).resolves.toBe('Board error 3.10 px');
    await expect(lightIn(cameraCard('cam02'))).resolves.toBe('red');
    await expect(result.getByTestId('poor-calibration').textContent()).resolves.toContain('cam02 (3.10 px)');
    await screenshot(page, 'calibration-quality');
  });

  it('warns before recording the neutral and a trial while the calibration is poor', async () => {
    await page.goto(`/${session.id}/neutral`);
    await expect(page.getByTestId('poor-calibration').textContent()).resolves.toContain('cam02 (3.10 px)');
    await page.goto(`/session/${session.id}`);
    await page.getByTestId('session-recorder').getByTestId('poor-calibration').waitFor();
  });

  it('Advanced Settings say what each choice runs here: BlazePose for the pose models, which augmenter is installed', async () => {
    await page.goto(`/${session.id}/neutral`);
    await page.getByRole('button', { name: 'Advanced Settings' }).click();
    const dialog = page.getByRole('dialog', { name: 'Advanced Settings' });
    const optionsOf = async (field: string) => {
      await dialog.getByRole('combobox', { name: field }).click();
      await page.getByRole('option').first().waitFor();
      const options = await page.getByRole('option').allTextContents();
      await page.keyboard.press('Escape');
      await page.getByRole('listbox').waitFor({ state: 'hidden' });
      return options;
    };
    // Once the server said what each choice runs, the chosen pose model says it below its field.
    await dialog.getByText('Processing runs BlazePose full.').waitFor();
    await expect(optionsOf('Pose model')).resolves.toEqual([
      'HRNet (accurate) — runs BlazePose full',
      'OpenPose (fast) — runs BlazePose lite',
    ]);
    await expect(optionsOf('Marker augmenter')).resolves.toEqual([
      'v0.3 (latest) — not installed, runs IK on the video keypoints',
      'v0.2 — runs the v0.2 augmenter weights (installed)',
    ]);
    await expect(optionsOf('Musculoskeletal model')).resolves.toEqual([
      'Full body — runs LaiUhlrich2022 (shipped with Kinetrace)',
      'Full body with shoulder complex — runs LaiUhlrich2022_shoulder (shipped with Kinetrace)',
    ]);
    // The chosen (default) augmenter says below its field what will run instead.
    await dialog
      .getByText('Not installed on this server: processing runs IK on the video keypoints instead.')
      .waitFor();
    await dialog.getByRole('combobox', { name: 'Marker augmenter' }).click();
    await screenshot(page, 'advanced-settings-choices');
    await page.keyboard.press('Escape');
  });

  it('the pose detection rate chosen in Advanced Settings, with what each rate costs, is saved on the session', async () => {
    const { server, token } = running;
    await callApi(server.baseUrl, token, '/subjects/', {
      name: 'Walker',
      weight: 69,
      height: 1.72,
      birth_year: 1990,
      subject_tags: ['unimpaired'],
      terms: true,
    });
    await page.goto(`/${session.id}/neutral`);
    await page.getByRole('button', { name: 'Advanced Settings' }).click();
    const dialog = page.getByRole('dialog', { name: 'Advanced Settings' });
    const rate = dialog.getByRole('combobox', { name: 'Pose detection rate' });
    // The server's default until the user chooses.
    await expect(rate.inputValue()).resolves.toBe(POSE_RATES.filter);
    await dialog.getByText('about half the pose time. Every frame: each frame detected, slower.').waitFor();
    await rate.click();
    await expect(page.getByRole('option').allTextContents()).resolves.toEqual(Object.values(POSE_RATES));
    await page.getByRole('option', { name: POSE_RATES.every_frame, exact: true }).click();
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached' });

    // The settings are saved on the session once the neutral is recorded or imported.
    await page.getByRole('combobox', { name: 'Subject' }).click();
    await page.getByRole('option', { name: /Walker/ }).click();
    await page.getByRole('checkbox', { name: /agrees/ }).check();
    await page.getByRole('combobox', { name: 'Data sharing' }).click();
    await page.getByRole('option', { name: 'Share processed data', exact: true }).click();
    await page.getByRole('button', { name: 'Import neutral videos' }).click();
    const importing = page.getByRole('dialog', { name: 'Import neutral videos' });
    await importing.waitFor();
    const stored = await callApi<Session>(server.baseUrl, token, `/sessions/${session.id}/`);
    expect(stored.meta.settings?.pose_rate).toBe('every_frame');
    await page.keyboard.press('Escape');
    await importing.waitFor({ state: 'detached' });
  });

  it('an opened trial shows its quality report as traffic lights with advice, and its settings in words', async () => {
    await page.goto(`/session/${session.id}`);
    await trialRow(page, 'walk').getByRole('cell', { name: 'walk', exact: true }).click();
    const quality = page.getByRole('region', { name: 'Quality' });
    await eventually(() => lightIn(quality)).toBe('red');
    const check = (title: string) => quality.locator(`[data-check="${title}"]`);
    // Each check with its light (the thresholds themselves: quality-lights.test.ts).
    await expect(lightIn(check('Reprojection error'))).resolves.toBe('red');
    await expect(lightIn(check('Segment lengths'))).resolves.toBe('amber');
    await expect(lightIn(check('Synchronisation'))).resolves.toBe('green');
    await expect(check('Reprojection error').getByTestId('quality-advice').textContent()).resolves.toContain(
      'The keypoints of cam02 land far from the 3D points',
    );
    await expect(check('Keypoints contributed').getByTestId('quality-advice').textContent()).resolves.toContain(
      "13 % of cam02's keypoints disagreed",
    );
    await expect(check('Marker error').getByTestId('quality-advice').textContent()).resolves.toContain(
      'worst: LWrist 48 mm',
    );
    await expect(check('Synchronisation').getByTestId('quality-advice').count()).resolves.toBe(0);

    const rows = quality.getByRole('table', { name: 'Quality per camera' }).locator('tbody tr');
    await expect(rows.nth(1).locator('td').allTextContents()).resolves.toEqual([
      'cam02',
      '4391',
      '640',
      '34.2 px',
      '57',
      '83 ms (wristVertical)',
      '3.10 pxPoor',
    ]);

    const processedWith = await page
      .getByRole('region', { name: 'Processed with' })
      .getByRole('listitem')
      .allTextContents();
    expect(processedWith).toEqual([
      "Keypoints: BlazePose full (the session's choice: HRNet (accurate)), from 2 cameras (cam01, cam02) at 60 fps, detected on 30 frames a second (the frames between filled), filtered at 12 Hz, the default for gait.",
      'Model: LaiUhlrich2022. The model shipped with Kinetrace, with markers at the video keypoints.',
      'Inverse kinematics, marker augmenter: none (keypoint IK). No augmenter weights are installed for "v0.3": inverse kinematics tracks the video keypoints directly.',
      'Scaling: Upright standing pose, subject 1.72 m, 69 kg.',
    ]);
    await screenshot(page, 'trial-quality-report');
  });
});
