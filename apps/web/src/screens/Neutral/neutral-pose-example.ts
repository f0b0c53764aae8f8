import { createDefaultModel } from '@kinetrace/mocap/default-model/default-model';
import { KinematicModel } from '@kinetrace/mocap/model/kinematic-model';
import { SKELETON_BONES } from '@kinetrace/mocap/render/skeleton-overlay';

/** One drawing of the stick figure: each bone as [x1, y1, x2, y2] and the head's centre, in metres on the page (y down). */
export interface FigureFrame {
  bones: [number, number, number, number][];
  head: [number, number];
}

/**
 * Where the person starts in the "getting into the pose" example: arms forward and bent, knees a little bent,
 * looking down (rad). They end at the model's zero, which is the neutral pose (upright, arms straight at the sides).
 */
const START_POSE: Record<string, number> = {
  arm_flex_r: 0.7,
  arm_flex_l: 0.5,
  elbow_flex_r: 1.4,
  elbow_flex_l: 1.2,
  hip_flexion_r: 0.35,
  hip_flexion_l: 0.25,
  knee_angle_r: -0.6,
  knee_angle_l: -0.45,
  lumbar_extension: -0.25,
};

/**
 * Kinetrace's own model, drawn as the app's stick figure from a camera turned `yawRad` about the vertical
 * from straight in front of the person: the examples of the Neutral panel (spec §2.11) are renderings of
 * the model the neutral pose scales, nothing recorded.
 */
function drawFigure(model: KinematicModel, pose: Float64Array, yawRad: number): FigureFrame {
  model.setCoordinates(pose);
  const positions = new Float64Array(3 * model.markerNames.length);
  model.markerPositions(positions);
  const [cos, sin] = [Math.cos(yawRad), Math.sin(yawRad)];
  // OpenSim's frame: x forward, y up, z to the person's right. Seen from the front, their right is on our left.
  const onPage = (name: string): [number, number] => {
    const m = model.markerNames.indexOf(name);
    const [x, y, z] = positions.subarray(3 * m, 3 * m + 3);
    return [-(z * cos - x * sin), -y];
  };
  const [leftEar, rightEar] = [onPage('LEar'), onPage('REar')];
  return {
    bones: SKELETON_BONES.map(([a, b]) => [...onPage(a), ...onPage(b)]),
    head: [(leftEar[0] + rightEar[0]) / 2, (leftEar[1] + rightEar[1]) / 2],
  };
}

export interface NeutralPoseExamples {
  image: FigureFrame;
  /** Each example video: its frames, played `durationS` in a loop. */
  videos: { title: string; durationS: number; frames: FigureFrame[] }[];
}

const VIDEO_FPS = 12;

/** The example image (the pose from the front) and the example videos (getting into it, and around it). */
export function neutralPoseExamples(): NeutralPoseExamples {
  const model = new KinematicModel(createDefaultModel());
  const neutral = model.defaultCoordinates();
  const start = Float64Array.from(neutral, (value, c) => START_POSE[model.coordinateNames[c]] ?? value);
  const between = (t: number) => Float64Array.from(neutral, (value, c) => start[c] + (value - start[c]) * t);
  // Two seconds moving into the pose (eased), three holding it still.
  const intoPose = Array.from({ length: 5 * VIDEO_FPS }, (_, i) => {
    const t = Math.min(1, i / (2 * VIDEO_FPS));
    return drawFigure(model, between(t * t * (3 - 2 * t)), Math.PI / 6);
  });
  const around = Array.from({ length: 6 * VIDEO_FPS }, (_, i) =>
    drawFigure(model, neutral, (2 * Math.PI * i) / (6 * VIDEO_FPS)),
  );
  return {
    image: drawFigure(model, neutral, 0),
    videos: [
      { title: 'Getting into the pose, then holding still', durationS: 5, frames: intoPose },
      { title: 'The pose from every side', durationS: 6, frames: around },
    ],
  };
}
