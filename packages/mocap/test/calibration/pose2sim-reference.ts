/** Readers for Pose2Sim's reference outputs used by the calibration tests (.trc markers, OpenPose json). */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const POSE2SIM_DEMO = 'pose2sim_demo/Pose2Sim/Demo_SinglePerson';
export const POSE2SIM_QCA = `${POSE2SIM_DEMO}/calibration/Calib.qca.txt`;
export const POSE2SIM_SESSION =
  'pose2sim_demo/history_reference_outputs/a948c205cfe4ea5c22d6941929e8efaba591a59d/Pose2Sim/S00_Demo_Session/S00_P00_SingleParticipant';
export const BALANCING_TRIAL = `${POSE2SIM_SESSION}/S00_P00_T01_BalancingTrial`;

/** OpenPose BODY_25B keypoint order, as in the reference json files. */
export const BODY_25B = [
  'Nose',
  'LEye',
  'REye',
  'LEar',
  'REar',
  'LShoulder',
  'RShoulder',
  'LElbow',
  'RElbow',
  'LWrist',
  'RWrist',
  'LHip',
  'RHip',
  'LKnee',
  'RKnee',
  'LAnkle',
  'RAnkle',
  'Neck',
  'Head',
  'LBigToe',
  'LSmallToe',
  'LHeel',
  'RBigToe',
  'RSmallToe',
  'RHeel',
];

export interface Trc {
  markers: string[];
  /** frames[f][m] = [x, y, z] in metres. */
  frames: [number, number, number][][];
}

export function readTrc(path: string): Trc {
  const lines = readFileSync(path, 'utf8').split(/\r?\n/);
  const markers = lines[3]
    .split('\t')
    .slice(2)
    .map((s) => s.trim())
    .filter(Boolean);
  const frames: [number, number, number][][] = [];
  for (const line of lines.slice(5)) {
    const values = line.trim().split(/\s+/).map(Number);
    if (values.length < 2 + markers.length * 3) continue;
    frames.push(markers.map((_, m) => [values[2 + 3 * m], values[3 + 3 * m], values[4 + 3 * m]]));
  }
  return { markers, frames };
}

/** The first person's keypoints (x, y, likelihood triples) of every json file in a folder, sorted by name. */
export function readOpenPoseFolder(dir: string): (number[] | null)[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => {
      const json = JSON.parse(readFileSync(join(dir, f), 'utf8')) as { people: { pose_keypoints_2d: number[] }[] };
      return json.people[0]?.pose_keypoints_2d ?? null;
    });
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? NaN : sorted[sorted.length >> 1];
}
