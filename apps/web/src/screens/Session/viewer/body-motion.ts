/**
 * A trial's `visualizerTransforms-json` (the OpenCap format: `time`, and per body a `translation`
 * per frame in metres and a body-fixed XYZ Euler `rotation` per frame in radians) as typed arrays,
 * and the skeleton drawn from it: which body hangs from which, and where each joint centre sits in
 * its parent's frame — all derived from the motion itself, so any OpenSim model draws.
 */

export interface BodyMotion {
  name: string;
  /** frames x 3, metres, world (y up). */
  translationsM: Float32Array;
  /** frames x 3, body-fixed X then Y then Z rotation, radians. */
  rotationsRad: Float32Array;
  /** The model's mesh files of this body (`attachedGeometries`; none when the file has no such list). */
  geometryFiles: string[];
  /** The scale factors of those meshes in the body's frame (`scaleFactors`; 1 when absent). */
  geometryScale: Vec3;
}

export interface TrialMotion {
  timesS: Float64Array;
  frameRateHz: number;
  bodies: BodyMotion[];
}

export class MotionFormatError extends Error {
  override name = 'MotionFormatError';
}

const isTriples = (value: unknown, frames: number): value is number[][] =>
  Array.isArray(value) && value.length === frames && value.every((row) => Array.isArray(row) && row.length === 3);

const isVec3 = (value: unknown): value is Vec3 =>
  Array.isArray(value) && value.length === 3 && value.every((v) => typeof v === 'number' && Number.isFinite(v));

export function parseTrialMotion(json: unknown): TrialMotion {
  const { time, bodies } = (json ?? {}) as { time?: unknown; bodies?: unknown };
  if (!Array.isArray(time) || time.length === 0 || typeof bodies !== 'object' || bodies === null) {
    throw new MotionFormatError('The 3D result is not a visualizer file: it needs "time" and "bodies".');
  }
  const frames = time.length;
  const parsed = Object.entries(
    bodies as Record<
      string,
      { translation?: unknown; rotation?: unknown; attachedGeometries?: unknown; scaleFactors?: unknown }
    >,
  ).map(([name, body]): BodyMotion => {
    if (!isTriples(body.translation, frames) || !isTriples(body.rotation, frames)) {
      throw new MotionFormatError(
        `The 3D result's body "${name}" does not have a translation and rotation for each of its ${frames} frames.`,
      );
    }
    const files = body.attachedGeometries;
    const scale = body.scaleFactors;
    return {
      name,
      translationsM: Float32Array.from(body.translation.flat()),
      rotationsRad: Float32Array.from(body.rotation.flat()),
      geometryFiles: Array.isArray(files) ? files.filter((file): file is string => typeof file === 'string') : [],
      geometryScale: isVec3(scale) ? scale : [1, 1, 1],
    };
  });
  const timesS = Float64Array.from(time as number[]);
  const frameRateHz = frames > 1 ? (frames - 1) / (timesS[frames - 1] - timesS[0]) : 1;
  return { timesS, frameRateHz, bodies: parsed };
}

/** The frame shown at `timeS`: the nearest one, clamped to the motion. */
export function frameAtTime(motion: Pick<TrialMotion, 'timesS' | 'frameRateHz'>, timeS: number): number {
  const last = motion.timesS.length - 1;
  return Math.min(last, Math.max(0, Math.round((timeS - motion.timesS[0]) * motion.frameRateHz)));
}

export type Vec3 = [number, number, number];

/** Row-major rotation of body-fixed XYZ angles: R = Rx(a) Ry(b) Rz(c), as three.js's Euler order 'XYZ'. */
export function rotationXyz(a: number, b: number, c: number): number[] {
  const [ca, sa, cb, sb, cc, sc] = [Math.cos(a), Math.sin(a), Math.cos(b), Math.sin(b), Math.cos(c), Math.sin(c)];
  return [
    cb * cc,
    -cb * sc,
    sb,
    ca * sc + sa * sb * cc,
    ca * cc - sa * sb * sc,
    -sa * cb,
    sa * sc - ca * sb * cc,
    sa * cc + ca * sb * sc,
    ca * cb,
  ];
}

/** `point` (world) in the frame of `body` at `frame`: Rᵀ (point − origin). */
function toBodyFrame(body: BodyMotion, frame: number, point: Vec3): Vec3 {
  const r = rotationXyz(
    body.rotationsRad[frame * 3],
    body.rotationsRad[frame * 3 + 1],
    body.rotationsRad[frame * 3 + 2],
  );
  const d = [0, 1, 2].map((k) => point[k] - body.translationsM[frame * 3 + k]);
  return [0, 1, 2].map((col) => r[col] * d[0] + r[3 + col] * d[1] + r[6 + col] * d[2]) as Vec3;
}

const origin = (body: BodyMotion, frame: number): Vec3 =>
  [0, 1, 2].map((k) => body.translationsM[frame * 3 + k]) as Vec3;

export interface SkeletonBody {
  name: string;
  /** Index of the parent body, -1 for the root. */
  parent: number;
  /** This body's origin (its joint centre) in the parent's frame, averaged over the trial. */
  jointInParentM: Vec3;
}

/** At most this many frames are compared when finding parents: enough to see which attachments stay rigid. */
const PARENT_SEARCH_FRAMES = 120;

/**
 * Each body's parent is the body listed before it (OpenSim lists parents first) in whose frame the
 * body's origin moves least over the trial: a joint centre is fixed in its parent segment, while it
 * swings through every other segment's frame.
 */
export function deriveSkeleton(motion: TrialMotion): SkeletonBody[] {
  const frameCount = motion.timesS.length;
  const step = Math.max(1, Math.floor(frameCount / PARENT_SEARCH_FRAMES));
  const frames = Array.from({ length: Math.ceil(frameCount / step) }, (_, i) => i * step);
  return motion.bodies.map((body, index) => {
    let best = { parent: -1, spread: Number.POSITIVE_INFINITY, mean: [0, 0, 0] as Vec3 };
    for (let candidate = 0; candidate < index; candidate++) {
      const local = frames.map((frame) => toBodyFrame(motion.bodies[candidate], frame, origin(body, frame)));
      const mean = [0, 1, 2].map((k) => local.reduce((sum, p) => sum + p[k], 0) / local.length) as Vec3;
      const spread = local.reduce(
        (sum, p) => sum + (p[0] - mean[0]) ** 2 + (p[1] - mean[1]) ** 2 + (p[2] - mean[2]) ** 2,
        0,
      );
      if (spread < best.spread) best = { parent: candidate, spread, mean };
    }
    return { name: body.name, parent: best.parent, jointInParentM: best.mean };
  });
}

export interface Bone {
  /** Body whose frame the bone is fixed in. */
  body: number;
  fromM: Vec3;
  toM: Vec3;
}

export interface Head {
  body: number;
  centreM: Vec3;
  radiusM: number;
}

/**
 * Winter (2009), Biomechanics and Motor Control of Human Movement, 4th ed., Fig. 4.1: shoulders at
 * 0.818 H, hips at 0.530 H (trunk 0.288 H), chin at 0.870 H, top of the head at H. So the head's
 * centre sits 0.117 H = 0.41 trunk lengths above the shoulders, and its radius is 0.065 H = 0.23 trunks.
 */
const HEAD_CENTRE_ABOVE_SHOULDERS_PER_TRUNK = 0.117 / 0.288;
const HEAD_RADIUS_PER_TRUNK = 0.065 / 0.288;
/** A body with no child (toes, hands) continues its limb by this fraction of the bone leading to it. */
const END_SEGMENT_FRACTION = 0.35;

const length = (v: Vec3) => Math.hypot(v[0], v[1], v[2]);
const scaled = (v: Vec3, s: number): Vec3 => [v[0] * s, v[1] * s, v[2] * s];

/** Two joints that mirror each other across the x-y plane (left and right), within a quarter of their distance. */
function mirroredPair(joints: Vec3[]): [Vec3, Vec3] | undefined {
  let best: { pair: [Vec3, Vec3]; error: number } | undefined;
  joints.forEach((a, i) =>
    joints.slice(i + 1).forEach((b) => {
      const error = Math.abs(a[0] - b[0]) + Math.abs(a[1] - b[1]) + Math.abs(a[2] + b[2]);
      if (error < 0.25 * Math.abs(a[2] - b[2]) && (!best || error < best.error)) best = { pair: [a, b], error };
    }),
  );
  return best?.pair;
}

/** Bones from each body's origin to its children's joint centres, girdles between paired children, end segments and the head. */
export function skeletonGeometry(
  motion: TrialMotion,
  skeleton: SkeletonBody[],
): { bones: Bone[]; head: Head | undefined } {
  const children = skeleton.map((_, index) =>
    skeleton.flatMap((body, child) => (body.parent === index ? [child] : [])),
  );
  const bones: Bone[] = [];
  let head: Head | undefined;
  skeleton.forEach((body, index) => {
    const kids = children[index];
    for (const child of kids) bones.push({ body: index, fromM: [0, 0, 0], toM: skeleton[child].jointInParentM });
    // Hips in the pelvis, shoulders in the trunk: the pair of limbs mirrored across the sagittal (x-y) plane.
    const pair = mirroredPair(
      kids.filter((child) => children[child].length > 0).map((child) => skeleton[child].jointInParentM),
    );
    if (pair) bones.push({ body: index, fromM: pair[0], toM: pair[1] });
    if (kids.length === 0 && body.parent >= 0) {
      // Continue the limb in this body's frame: the direction from the parent's origin to this joint, expressed here.
      const frame = 0;
      const direction = toBodyFrame(motion.bodies[index], frame, origin(motion.bodies[body.parent], frame));
      if (length(direction) > 0)
        bones.push({ body: index, fromM: [0, 0, 0], toM: scaled(direction, -END_SEGMENT_FRACTION) });
    }
    // The trunk: a non-root body whose mirrored pair of limbs (the shoulders) sits above its origin.
    if (!head && body.parent >= 0 && pair) {
      const shoulders = scaled([pair[0][0] + pair[1][0], pair[0][1] + pair[1][1], pair[0][2] + pair[1][2]], 0.5);
      const trunk = length(shoulders);
      if (shoulders[1] > 0) {
        head = {
          body: index,
          centreM: [shoulders[0], shoulders[1] + HEAD_CENTRE_ABOVE_SHOULDERS_PER_TRUNK * trunk, shoulders[2]],
          radiusM: HEAD_RADIUS_PER_TRUNK * trunk,
        };
      }
    }
  });
  return { bones, head };
}
