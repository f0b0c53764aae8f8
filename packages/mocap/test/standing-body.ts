/**
 * A synthetic person standing upright, facing +x (OpenSim's forward), y up: each video keypoint's
 * place in metres, paired keypoints given at their right (+z) side (the left one mirrors it).
 * Shared by the synthetic tests of the triangulation and filtering stages.
 */
export const STANDING_BODY: Readonly<Record<string, readonly [number, number, number]>> = {
  Nose: [0.1, 1.6, 0],
  Eye: [0.08, 1.63, 0.03],
  Ear: [0, 1.6, 0.07],
  Neck: [0, 1.45, 0],
  Shoulder: [0, 1.45, 0.18],
  Elbow: [0, 1.17, 0.22],
  Wrist: [0.06, 0.92, 0.24],
  midHip: [0, 0.95, 0],
  Hip: [0, 0.95, 0.1],
  Knee: [0.03, 0.52, 0.1],
  Ankle: [0, 0.09, 0.1],
  Heel: [-0.05, 0.03, 0.1],
  BigToe: [0.16, 0.02, 0.1],
};

/** Where keypoint `name` stands: its side's place, the left mirrored across the body's middle. */
export function standingPoint(name: string): [number, number, number] {
  const side = name.startsWith('R') ? 1 : name.startsWith('L') ? -1 : 0;
  const [x, y, z] = STANDING_BODY[side === 0 ? name : name.slice(1)];
  return [x, y, side === 0 ? z : side * z];
}
