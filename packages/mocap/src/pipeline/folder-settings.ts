import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { keysOf, POSE_RATES } from '@kinetrace/contracts';
import type { FilterFrequencySetting } from '../filter/cutoff.ts';
import { isModelName, type ModelName } from '../default-model/named-models.ts';
import { POSE_MODEL_NAMES, type PoseModelName } from '../pose/pose-model.ts';
import type { PoseRate } from '../pose/pose-rate.ts';
import { ProcessingError } from './processing-error.ts';

/**
 * `settings.json` of a folder processed by `kinetrace process` (all optional; docs/process.md).
 * Defaults are the product's (spec §9): board 4 × 5 inner corners of 35 mm, standing perpendicular
 * to the ground; filter 'default'; subject 1.8 m and 70 kg; scaling upright_standing_pose.
 */
export interface FolderSettings {
  filterFrequency: FilterFrequencySetting;
  poseModel?: PoseModelName;
  /** How often the pose model runs on a camera's frames (pose-rate.ts): every frame unless 'filter' is asked for. */
  poseRate?: PoseRate;
  /** 'gait' gets the 12 Hz default cutoff; by default decided from each trial's name. */
  movement?: 'gait' | 'other';
  board: { rows: number; cols: number; squareSizeMm: number; placement: 'Perpendicular' | 'Lying' };
  subject: { heightM: number; massKg: number };
  /** How the neutral/static trial's pose is taken for scaling (spec §3 scaling_setup). */
  scalingSetup: 'upright_standing_pose' | 'any_pose';
  /** An OpenSim model (.osim) to scale instead of a shipped model; absolute, or resolved against the folder. */
  modelPath?: string;
  /** A shipped model by name (named-models.ts), LaiUhlrich2022 when neither this nor modelPath is given. */
  modelName?: ModelName;
  /** A folder of marker-augmenter weights (body/ and arm/ networks); absolute, or resolved against the folder. */
  augmenterDir?: string;
  /** false for hardware-synchronised cameras. */
  synchronise: boolean;
  maxSyncLagS?: number;
  minConfidence?: number;
  /** Camera name → time of its first frame on the phones' shared clock, seconds. */
  firstFrameTimesS: Record<string, number>;
}

export const DEFAULT_FOLDER_SETTINGS: FolderSettings = {
  filterFrequency: 'default',
  board: { rows: 4, cols: 5, squareSizeMm: 35, placement: 'Perpendicular' },
  subject: { heightM: 1.8, massKg: 70 },
  scalingSetup: 'upright_standing_pose',
  synchronise: true,
  firstFrameTimesS: {},
};

export function readFolderSettings(folder: string): FolderSettings {
  const path = join(folder, 'settings.json');
  if (!existsSync(path)) return structuredClone(DEFAULT_FOLDER_SETTINGS);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ProcessingError(
      'INVALID_FOLDER',
      `${path} is not valid JSON (${(error as Error).message}). Fix it or remove it to use the defaults.`,
    );
  }
  return parseFolderSettings(raw, path, folder);
}

/** `folder` resolves the relative `model` and `augmenter` paths (the current directory when omitted). */
export function parseFolderSettings(raw: unknown, source = 'settings.json', folder = '.'): FolderSettings {
  const invalid = (what: string) => new ProcessingError('INVALID_FOLDER', `${source}: ${what}`);
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw invalid('must be a JSON object');
  const input = raw as Record<string, unknown>;
  const settings = structuredClone(DEFAULT_FOLDER_SETTINGS);
  const positive = (value: unknown, name: string) => {
    if (typeof value !== 'number' || !(value > 0)) throw invalid(`"${name}" must be a positive number`);
    return value;
  };

  if (input.filterFrequency !== undefined) {
    const value = input.filterFrequency;
    if (value !== 'default' && typeof value !== 'number' && typeof value !== 'string')
      throw invalid('"filterFrequency" must be "default" or a number of Hz');
    settings.filterFrequency = value as FilterFrequencySetting;
  }
  if (input.poseModel !== undefined) {
    if (!(POSE_MODEL_NAMES as readonly unknown[]).includes(input.poseModel))
      throw invalid(`"poseModel" must be one of ${POSE_MODEL_NAMES.join(', ')}`);
    settings.poseModel = input.poseModel as PoseModelName;
  }
  if (input.poseRate !== undefined) {
    const rates = keysOf(POSE_RATES);
    if (!(rates as readonly unknown[]).includes(input.poseRate))
      throw invalid(`"poseRate" must be one of ${rates.map((rate) => `"${rate}"`).join(', ')}`);
    settings.poseRate = input.poseRate as PoseRate;
  }
  if (input.movement !== undefined) {
    if (input.movement !== 'gait' && input.movement !== 'other') throw invalid('"movement" must be "gait" or "other"');
    settings.movement = input.movement;
  }
  if (input.board !== undefined) {
    const board = input.board as Record<string, unknown>;
    if (typeof board !== 'object' || board === null) throw invalid('"board" must be an object');
    settings.board = {
      rows: board.rows === undefined ? settings.board.rows : positive(board.rows, 'board.rows'),
      cols: board.cols === undefined ? settings.board.cols : positive(board.cols, 'board.cols'),
      squareSizeMm:
        board.squareSizeMm === undefined
          ? settings.board.squareSizeMm
          : positive(board.squareSizeMm, 'board.squareSizeMm'),
      placement:
        board.placement === undefined ? settings.board.placement : (board.placement as 'Perpendicular' | 'Lying'),
    };
    if (settings.board.placement !== 'Perpendicular' && settings.board.placement !== 'Lying')
      throw invalid('"board.placement" must be "Perpendicular" or "Lying"');
  }
  if (input.subject !== undefined) {
    const subject = input.subject as Record<string, unknown>;
    if (typeof subject !== 'object' || subject === null) throw invalid('"subject" must be an object');
    if (subject.heightM !== undefined) settings.subject.heightM = positive(subject.heightM, 'subject.heightM');
    if (subject.massKg !== undefined) settings.subject.massKg = positive(subject.massKg, 'subject.massKg');
  }
  if (input.scalingSetup !== undefined) {
    if (input.scalingSetup !== 'upright_standing_pose' && input.scalingSetup !== 'any_pose')
      throw invalid('"scalingSetup" must be "upright_standing_pose" or "any_pose"');
    settings.scalingSetup = input.scalingSetup;
  }
  for (const [field, key] of [
    ['model', 'modelPath'],
    ['augmenter', 'augmenterDir'],
  ] as const) {
    const value = input[field];
    if (value === undefined) continue;
    if (typeof value !== 'string' || value.trim() === '') throw invalid(`"${field}" must be a path`);
    const path = resolve(folder, value);
    if (field === 'model' && isModelName(value) && !existsSync(path)) {
      settings.modelName = value;
      continue;
    }
    if (!existsSync(path)) throw invalid(`"${field}": ${path} does not exist`);
    settings[key] = path;
  }
  if (input.synchronise !== undefined) {
    if (typeof input.synchronise !== 'boolean') throw invalid('"synchronise" must be true or false');
    settings.synchronise = input.synchronise;
  }
  if (input.maxSyncLagS !== undefined) settings.maxSyncLagS = positive(input.maxSyncLagS, 'maxSyncLagS');
  if (input.minConfidence !== undefined) settings.minConfidence = positive(input.minConfidence, 'minConfidence');
  if (input.firstFrameTimesS !== undefined) {
    const times = input.firstFrameTimesS as Record<string, unknown>;
    if (typeof times !== 'object' || times === null)
      throw invalid('"firstFrameTimesS" must map camera names to seconds');
    for (const [camera, value] of Object.entries(times)) {
      if (typeof value !== 'number' || !Number.isFinite(value))
        throw invalid(`"firstFrameTimesS.${camera}" must be a number of seconds`);
      settings.firstFrameTimesS[camera] = value;
    }
  }
  return settings;
}
