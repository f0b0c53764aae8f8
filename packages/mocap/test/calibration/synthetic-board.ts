/**
 * Renders synthetic checkerboard images with known corners: a pinhole camera (optionally with
 * lens distortion) looking at a board, anti-aliased by supersampling, with optional clutter,
 * lighting gradient, blur and noise. Pixel centres are at integer coordinates.
 */
import { type CameraModel, projectPoint, undistortPixel } from '../../src/camera/camera.ts';
import { type FloatImage, gaussianBlur } from '../../src/calibration/image.ts';
import { multiply3, rodriguesToMatrix } from '../../src/calibration/linalg.ts';

export interface BoardSpec {
  rows: number; // inner corners
  cols: number;
  squareM: number;
  /** White margin around the squares, in squares (default 0.7). */
  margin?: number;
}

export interface RenderOptions {
  supersample?: number;
  blurSigma?: number;
  noiseSigma?: number;
  /** Multiplicative lighting: 1 − strength · (x / width) (default 0). */
  lightingGradient?: number;
  clutter?: boolean;
  seed?: number;
  dark?: number;
  light?: number;
  background?: number;
}

/** A small deterministic PRNG (mulberry32). */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function clutterLayer(width: number, height: number, rnd: () => number, base: number): Float32Array {
  const img = new Float32Array(width * height).fill(base);
  const shapes = 60;
  for (let s = 0; s < shapes; s++) {
    const kind = rnd();
    const v = 30 + rnd() * 200;
    const cx = rnd() * width;
    const cy = rnd() * height;
    const size = 10 + rnd() * Math.min(width, height) * 0.15;
    const angle = rnd() * Math.PI;
    const ca = Math.cos(angle);
    const sa = Math.sin(angle);
    const x0 = Math.max(0, Math.floor(cx - size * 1.5));
    const x1 = Math.min(width - 1, Math.ceil(cx + size * 1.5));
    const y0 = Math.max(0, Math.floor(cy - size * 1.5));
    const y1 = Math.min(height - 1, Math.ceil(cy + size * 1.5));
    for (let y = y0; y <= y1; y++) {
      for (let x = x0; x <= x1; x++) {
        const dx = x - cx;
        const dy = y - cy;
        const u = dx * ca + dy * sa;
        const w = -dx * sa + dy * ca;
        let inside = false;
        if (kind < 0.4)
          inside = Math.abs(u) < size && Math.abs(w) < size * 0.5; // rectangles
        else if (kind < 0.7)
          inside = dx * dx + dy * dy < size * size; // discs
        else if (kind < 0.85)
          inside = Math.abs(w) < 2 + size * 0.03 && Math.abs(u) < size * 1.5; // lines
        else inside = Math.abs(u) < size && Math.abs(w) < size && Math.sin(u * 0.5) > 0; // stripes
        if (inside) img[y * width + x] = v;
      }
    }
  }
  return img;
}

/** Renders the board seen by the camera; returns the image and the true corners (row-major). */
export function renderBoard(
  camera: CameraModel,
  board: BoardSpec,
  options: RenderOptions = {},
): { gray: Uint8Array; corners: Float64Array } {
  const { width, height } = camera.imageSize;
  const n = options.supersample ?? 4; // N = 4 n² samples per edge pixel
  const rnd = random(options.seed ?? 1);
  const dark = options.dark ?? 30;
  const light = options.light ?? 220;
  const background = options.clutter ? clutterLayer(width, height, rnd, options.background ?? 120) : null;
  const R = camera.rotationCameraFromWorld;
  const t = camera.translationCameraFromWorldM;
  // Camera centre and ray directions in board coordinates.
  const C = [
    -(R[0] * t[0] + R[3] * t[1] + R[6] * t[2]),
    -(R[1] * t[0] + R[4] * t[1] + R[7] * t[2]),
    -(R[2] * t[0] + R[5] * t[1] + R[8] * t[2]),
  ];
  const margin = (board.margin ?? 0.7) * board.squareM;
  const s = board.squareM;
  const minX = -s - margin;
  const maxX = board.cols * s + margin;
  const minY = -s - margin;
  const maxY = board.rows * s + margin;
  const hasDistortion = camera.distortion.some((d) => d !== 0);
  const K = camera.intrinsics;
  // Value of the scene at one image point: board colour, or -1 off the board.
  const sceneAt = (u: number, v: number): number => {
    let x: number;
    let y: number;
    if (hasDistortion) [x, y] = undistortPixel(camera, u, v, 20);
    else {
      y = (v - K[5]) / K[4];
      x = (u - K[2] - K[1] * y) / K[0];
    }
    const d0 = R[0] * x + R[3] * y + R[6];
    const d1 = R[1] * x + R[4] * y + R[7];
    const d2 = R[2] * x + R[5] * y + R[8];
    if (Math.abs(d2) < 1e-12) return -1;
    const lambda = -C[2] / d2;
    if (lambda <= 0) return -1;
    const X = C[0] + lambda * d0;
    const Y = C[1] + lambda * d1;
    if (X < minX || X > maxX || Y < minY || Y > maxY) return -1;
    if (X < -s || X >= board.cols * s || Y < -s || Y >= board.rows * s) return light;
    const j = Math.floor(X / s) + 1;
    const i = Math.floor(Y / s) + 1;
    return (i + j) % 2 === 0 ? dark : light;
  };
  // Anti-aliasing: pixels whose corners and centre agree are uniform; the others are integrated
  // over a rank-1 lattice of N points (distinct x and y offsets: edge positions resolved to 1/N px).
  const N = n * n * 4;
  const gen = [1, 0.6180339887498949];
  const out = new Float32Array(width * height);
  for (let py = 0; py < height; py++) {
    for (let px = 0; px < width; px++) {
      const bg = background ? background[py * width + px] : (options.background ?? 120);
      const probe = [
        sceneAt(px, py),
        sceneAt(px - 0.5, py - 0.5),
        sceneAt(px + 0.5, py - 0.5),
        sceneAt(px - 0.5, py + 0.5),
        sceneAt(px + 0.5, py + 0.5),
      ];
      if (probe.every((p) => p === probe[0])) {
        out[py * width + px] = probe[0] < 0 ? bg : probe[0];
        continue;
      }
      let acc = 0;
      for (let k = 0; k < N; k++) {
        const ox = (k + 0.5) / N - 0.5;
        const oy = ((((k * gen[1]) % 1) + 1) % 1) - 0.5;
        const value = sceneAt(px + ox, py + oy);
        acc += value < 0 ? bg : value;
      }
      out[py * width + px] = acc / N;
    }
  }
  let img: FloatImage = { data: out, width, height };
  if (options.blurSigma) img = gaussianBlur(img, options.blurSigma);
  const gray = new Uint8Array(width * height);
  const grad = options.lightingGradient ?? 0;
  for (let i = 0; i < gray.length; i++) {
    const x = i % width;
    let v = img.data[i] * (1 - grad * (x / width));
    if (options.noiseSigma) {
      // Box-Muller
      const u1 = Math.max(1e-12, rnd());
      const u2 = rnd();
      v += options.noiseSigma * Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
    }
    gray[i] = Math.max(0, Math.min(255, Math.round(v)));
  }
  const corners = new Float64Array(board.rows * board.cols * 2);
  for (let r = 0; r < board.rows; r++) {
    for (let c = 0; c < board.cols; c++) {
      const p = projectPoint(camera, [c * s, r * s, 0])!;
      corners[2 * (r * board.cols + c)] = p[0];
      corners[2 * (r * board.cols + c) + 1] = p[1];
    }
  }
  return { gray, corners };
}

/** A camera at `distanceM` looking at the board centre, rotated by (pitch, yaw, roll) degrees. */
export function lookAtBoard(
  board: BoardSpec,
  size: { width: number; height: number },
  focalPx: number,
  distanceM: number,
  pitchDeg: number,
  yawDeg: number,
  rollDeg: number,
  distortion: number[] = [0, 0, 0, 0, 0],
  name = 'synthetic',
): CameraModel {
  const rad = Math.PI / 180;
  const rx = rotation([1, 0, 0], pitchDeg * rad);
  const ry = rotation([0, 1, 0], yawDeg * rad);
  const rz = rotation([0, 0, 1], rollDeg * rad);
  // Camera-from-board rotation: tilt the board relative to the camera axes.
  const R = multiply3(rz, multiply3(rx, ry));
  const centre = [((board.cols - 1) * board.squareM) / 2, ((board.rows - 1) * board.squareM) / 2, 0];
  // Board centre at (0, 0, distance) in the camera: t = (0,0,d) − R · centre.
  const Rc = [0, 1, 2].map((i) => R[i * 3] * centre[0] + R[i * 3 + 1] * centre[1] + R[i * 3 + 2] * centre[2]);
  return {
    name,
    imageSize: size,
    intrinsics: Float64Array.from([
      focalPx,
      0,
      size.width / 2 - 0.5 + 7.3,
      0,
      focalPx,
      size.height / 2 - 0.5 - 4.1,
      0,
      0,
      1,
    ]),
    distortion: Float64Array.from(distortion),
    rotationCameraFromWorld: Float64Array.from(R),
    translationCameraFromWorldM: Float64Array.from([-Rc[0], -Rc[1], distanceM - Rc[2]]),
  };
}

/** Rotation matrix (row-major) by `angle` radians about the unit vector `axis`. */
export function rotation(axis: number[], angle: number): number[] {
  return rodriguesToMatrix(axis.map((component) => component * angle));
}

/**
 * The world-to-camera pose of a camera at `centre` looking at `target` with the world's y up (image
 * x to the right, image y down), turned by `rollDeg` about its optical axis.
 */
export function lookAt(
  centre: readonly number[],
  target: readonly number[],
  rollDeg = 0,
): { R: number[]; t: number[] } {
  const forward = normalise(target.map((v, i) => v - centre[i]));
  const right = normalise(cross(forward, [0, 1, 0]));
  const R = multiply3(rotation([0, 0, 1], (rollDeg * Math.PI) / 180), [...right, ...cross(forward, right), ...forward]);
  const t = [0, 1, 2].map((i) => -(R[i * 3] * centre[0] + R[i * 3 + 1] * centre[1] + R[i * 3 + 2] * centre[2]));
  return { R, t };
}

function cross(a: readonly number[], b: readonly number[]): number[] {
  return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
}

function normalise(v: number[]): number[] {
  const length = Math.hypot(...v);
  return v.map((x) => x / length);
}
