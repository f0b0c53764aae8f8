/**
 * Checkerboard (chessboard) inner-corner detection in pure TypeScript.
 *
 * Pipeline: (1) search on a downscaled copy (longest side `searchMaxSize`): Gaussian smoothing,
 * saddle response −det(Hessian), non-maximum suppression; (2) a circle test keeps X-junctions
 * (exactly four alternating dark/bright sectors) and measures their two line directions;
 * (3) grid growing from seeds: neighbours along both line directions, checked for the checker
 * colour alternation, extended row by row with perspective-tolerant prediction until an inner
 * lattice of rows x cols (or cols x rows) is found, then checked against a homography;
 * (4) sub-pixel refinement at full resolution by gradient orthogonality (as cornerSubPix);
 * (5) the corners are put in the documented order (see `orderCorners`).
 *
 * Corner order (the convention every caller relies on):
 * - row-major: corner k = r * cols + c (r < rows, c < cols) is the board point (c, r) · square;
 *   "rows x cols" are INNER corners, either way round in the image (a 4 x 7 board seen turned by
 *   90° is still reported as 4 rows of 7);
 * - handedness: X = corner 1 − corner 0 and Y = corner cols − corner 0 turn clockwise in the
 *   image (x right, y down), so the board's Z = X × Y points away from the camera, as OpenCV;
 * - origin: when rows + cols is odd (an even number of squares along one side and odd along the
 *   other, e.g. 4 x 7 corners = 5 x 8 squares) the square between corners 0, 1, cols, cols + 1
 *   is a dark one: the origin is the same physical corner of the board in every view, so several
 *   cameras agree on the world frame. For symmetric boards (rows + cols even) that is
 *   impossible; corner 0 is then the one that makes X point rightwards in the image.
 */
import { cropToFloat, type FloatImage, gaussianBlur, resizeArea, sampleBilinear } from './image.ts';

/** The caller's 8-bit image, read without copying. */
interface GrayImage {
  data: Uint8Array;
  width: number;
  height: number;
}
import { applyHomography, fitHomography } from './linalg.ts';

export interface CheckerboardOptions {
  /** Longest side of the image the search runs on (default 960 px). Refinement is at full size. */
  searchMaxSize?: number;
  /** Also search at twice that size when the first search fails (small, distant boards). Default true. */
  retryLarger?: boolean;
  /** Sub-pixel refinement at full resolution (default true). */
  refine?: boolean;
}

export interface CheckerboardDetection {
  /** rows * cols corners, [x0, y0, x1, y1, ...] in full-resolution pixels, in the documented order. */
  corners: Float64Array;
  rows: number;
  cols: number;
  /** Mean distance between neighbouring corners, pixels. */
  spacingPx: number;
  /** Edge sharpness, 1/px (about 1/blur width): higher is sharper. */
  sharpness: number;
  /** RMS distance of the corners to the best homography of the board grid, pixels. */
  homographyRmsPx: number;
  /** Whether the origin corner was fixed by the square colours (rows + cols odd). */
  originFromColours: boolean;
}

/** Why a search failed, for actionable messages. */
export interface CheckerboardDiagnostics {
  candidates: number;
  /** The largest lattice of X-junctions found (rows x cols), when any. */
  largestGrid: { rows: number; cols: number } | null;
}

interface Candidate {
  x: number;
  y: number;
  response: number;
  /** The two line directions (radians, modulo π). */
  angle1: number;
  angle2: number;
  contrast: number;
}

interface GridCell {
  x: number;
  y: number;
  candidate: number; // -1 when predicted (no detected candidate)
}

const EMPTY_DIAGNOSTICS: CheckerboardDiagnostics = { candidates: 0, largestGrid: null };

/**
 * Finds the inner corners of a rows x cols checkerboard in a grayscale image. Returns null when
 * the board is not found (never throws on image content, bounded time per frame).
 */
export function detectCheckerboard(
  gray: Uint8Array,
  width: number,
  height: number,
  rows: number,
  cols: number,
  options: CheckerboardOptions = {},
): Float64Array | null {
  return findCheckerboard(gray, width, height, rows, cols, options).detection?.corners ?? null;
}

/** Like detectCheckerboard, with quality measures and diagnostics of a failed search. */
export function findCheckerboard(
  gray: Uint8Array,
  width: number,
  height: number,
  rows: number,
  cols: number,
  options: CheckerboardOptions = {},
): { detection: CheckerboardDetection | null; diagnostics: CheckerboardDiagnostics } {
  if (!Number.isInteger(rows) || !Number.isInteger(cols) || rows < 2 || cols < 2) {
    throw new Error(`Checkerboard size must be at least 2 x 2 inner corners, got ${rows} x ${cols}`);
  }
  if (!(width > 8 && height > 8)) return { detection: null, diagnostics: EMPTY_DIAGNOSTICS };
  if (gray.length < width * height)
    throw new Error(`Image buffer has ${gray.length} bytes, expected ${width} x ${height}`);
  const full: GrayImage = { data: gray, width, height };
  const maxSize = options.searchMaxSize ?? 960;
  const scales = [Math.min(1, maxSize / Math.max(width, height))];
  if ((options.retryLarger ?? true) && scales[0] < 1) scales.push(Math.min(1, scales[0] * 2));
  let diagnostics: CheckerboardDiagnostics = EMPTY_DIAGNOSTICS;
  for (const [attempt, scale] of scales.entries()) {
    // The larger search only when the first one saw a lattice of at least 2 x 3 X-junctions (a
    // small, distant board); frames with nothing checker-like stay cheap.
    if (attempt > 0 && !(diagnostics.largestGrid && gridSize(diagnostics.largestGrid) >= 6)) break;
    const result = searchAtScale(full, scale, rows, cols, options.refine ?? true);
    if (result.detection) return result;
    if (
      !diagnostics.largestGrid ||
      (result.diagnostics.largestGrid && gridSize(result.diagnostics.largestGrid) > gridSize(diagnostics.largestGrid))
    ) {
      diagnostics = {
        candidates: Math.max(diagnostics.candidates, result.diagnostics.candidates),
        largestGrid: result.diagnostics.largestGrid,
      };
    }
  }
  return { detection: null, diagnostics };
}

function gridSize(g: { rows: number; cols: number }): number {
  return g.rows * g.cols;
}

function searchAtScale(
  full: GrayImage,
  scale: number,
  rows: number,
  cols: number,
  refine: boolean,
): { detection: CheckerboardDetection | null; diagnostics: CheckerboardDiagnostics } {
  const w = Math.max(8, Math.round(full.width * scale));
  const h = Math.max(8, Math.round(full.height * scale));
  const sx = w / full.width;
  const sy = h / full.height;
  const small = resizeArea(full, w, h);
  const smooth = gaussianBlur(small, 1.2);
  const candidates = findCandidates(smooth, rows * cols);
  const diagnostics: CheckerboardDiagnostics = { candidates: candidates.length, largestGrid: null };
  if (candidates.length < 4) return { detection: null, diagnostics };

  const index = new SpatialIndex(candidates, w, h);
  const maxSeeds = Math.min(candidates.length, 40);
  const tried = new Uint8Array(candidates.length);
  for (let s = 0; s < maxSeeds; s++) {
    if (tried[s]) continue;
    const grid = growGrid(s, candidates, index, smooth, Math.max(rows, cols) + 3);
    if (!grid) continue;
    for (const cell of grid.cells) if (cell.candidate >= 0) tried[cell.candidate] = 1;
    const size = { rows: grid.rows, cols: grid.cols };
    if (!diagnostics.largestGrid || gridSize(size) > gridSize(diagnostics.largestGrid)) diagnostics.largestGrid = size;
    // The lattice may have grown a row or column too far (false junctions along the board's
    // edge, e.g. clutter touching the margin): try every rows x cols window of it (either way
    // round) when it is at most 2 larger, and keep the window that fits a homography best.
    let best: CheckerboardDetection | null = null;
    for (const [wr, wc] of [
      [rows, cols],
      [cols, rows],
    ] as const) {
      if (grid.rows < wr || grid.cols < wc || grid.rows - wr > 2 || grid.cols - wc > 2) continue;
      for (let i0 = 0; i0 + wr <= grid.rows; i0++) {
        for (let j0 = 0; j0 + wc <= grid.cols; j0++) {
          const window: GridCell[] = [];
          for (let i = i0; i < i0 + wr; i++)
            for (let j = j0; j < j0 + wc; j++) window.push(grid.cells[i * grid.cols + j]);
          const predicted = window.filter((c) => c.candidate < 0).length;
          if (predicted > Math.max(1, Math.floor(0.15 * rows * cols))) continue;
          // Back to full-resolution pixel coordinates (pixel centres at integers in both images).
          const fullCells = window.map((c) => ({ x: (c.x + 0.5) / sx - 0.5, y: (c.y + 0.5) / sy - 0.5 }));
          if (grid.rows !== wr || grid.cols !== wc) {
            // Refuse a window of a genuinely larger board (wrong rows/cols given): the lattice
            // points outside the window must not continue the window's grid.
            if (extraCellsContinueGrid(grid, i0, j0, wr, wc, full, sx, sy)) continue;
          }
          const detection = finishDetection(full, fullCells, wr, wc, rows, cols, refine);
          if (detection && (!best || detection.homographyRmsPx < best.homographyRmsPx)) best = detection;
        }
      }
      if (rows === cols) break;
    }
    if (best) return { detection: best, diagnostics };
  }
  return { detection: null, diagnostics };
}

/**
 * Whether the detected (not predicted) lattice points outside a window lie on the window's
 * projective grid, i.e. the board really is larger than the window (median deviation under 12 %
 * of the local spacing).
 */
function extraCellsContinueGrid(
  grid: Grid,
  i0: number,
  j0: number,
  wr: number,
  wc: number,
  full: GrayImage,
  sx: number,
  sy: number,
): boolean {
  const src: number[] = [];
  const dst: number[] = [];
  for (let i = i0; i < i0 + wr; i++) {
    for (let j = j0; j < j0 + wc; j++) {
      const c = grid.cells[i * grid.cols + j];
      src.push(j, i);
      dst.push(c.x, c.y);
    }
  }
  const H = fitHomography(src, dst, wr * wc);
  if (!H) return false;
  const deviations: number[] = [];
  for (let i = 0; i < grid.rows; i++) {
    for (let j = 0; j < grid.cols; j++) {
      if (i >= i0 && i < i0 + wr && j >= j0 && j < j0 + wc) continue;
      const c = grid.cells[i * grid.cols + j];
      if (c.candidate < 0) continue;
      const [u, v] = applyHomography(H, j, i);
      const [u1, v1] = applyHomography(H, j + 1, i);
      const [u2, v2] = applyHomography(H, j, i + 1);
      const spacing = (Math.hypot(u1 - u, v1 - v) + Math.hypot(u2 - u, v2 - v)) / 2;
      const onGrid = Math.hypot(c.x - u, c.y - v) / spacing < 0.12;
      // The board's outer edge also lies on the grid, but its corners are not X-junctions.
      const fx = (c.x + 0.5) / sx - 0.5;
      const fy = (c.y + 0.5) / sy - 0.5;
      const real = onGrid && isXJunction(full, fx, fy, spacing / sx);
      deviations.push(real ? 1 : 0);
    }
  }
  if (deviations.length === 0) return false;
  const real = deviations.reduce((a, b) => a + b, 0);
  debug(`${real} of ${deviations.length} lattice points outside the window are X-junctions on its grid`);
  return real >= Math.ceil(deviations.length / 2);
}

/** Full-resolution X-junction test on a circle of 0.3 spacings (inside the four squares). */
function isXJunction(full: GrayImage, x: number, y: number, spacingPx: number): boolean {
  // Near the image border the circle shrinks to fit; a corner too close to test passes.
  const room = Math.min(x, y, full.width - 2 - x, full.height - 2 - y) - 1;
  const radius = Math.min(Math.max(3, Math.min(20, 0.3 * spacingPx)), room);
  if (radius < 2.5) return true;
  return circleTest(full as unknown as FloatImage, x, y, radius) !== null;
}

// ---------------------------------------------------------------------------------------------
// Candidates: saddle response, non-maximum suppression, circle test.

function findCandidates(image: FloatImage, expected: number): Candidate[] {
  const { data, width, height } = image;
  const response = new Float32Array(width * height);
  let maxResponse = 0;
  for (let y = 2; y < height - 2; y++) {
    for (let x = 2; x < width - 2; x++) {
      const i = y * width + x;
      const c = data[i];
      const ixx = data[i - 1] - 2 * c + data[i + 1];
      const iyy = data[i - width] - 2 * c + data[i + width];
      const ixy = (data[i + width + 1] - data[i + width - 1] - data[i - width + 1] + data[i - width - 1]) / 4;
      const r = ixy * ixy - ixx * iyy;
      if (r > 0) {
        response[i] = r;
        if (r > maxResponse) maxResponse = r;
      }
    }
  }
  // An ideal X-junction of contrast C smoothed with σ = 1.2 px peaks near (0.045 C)²; ask for C ≳ 12.
  const floor = Math.max(0.25, 1e-3 * maxResponse);
  const radius = 3;
  const peaks: { i: number; r: number }[] = [];
  for (let y = radius + 2; y < height - radius - 2; y++) {
    for (let x = radius + 2; x < width - radius - 2; x++) {
      const i = y * width + x;
      const r = response[i];
      if (r < floor) continue;
      let isMax = true;
      for (let dy = -radius; dy <= radius && isMax; dy++) {
        const row = i + dy * width;
        for (let dx = -radius; dx <= radius; dx++) {
          const o = response[row + dx];
          if (o > r || (o === r && (dy < 0 || (dy === 0 && dx < 0)))) {
            isMax = false;
            break;
          }
        }
      }
      if (isMax) peaks.push({ i, r });
    }
  }
  peaks.sort((a, b) => b.r - a.r);
  const limit = Math.min(peaks.length, Math.max(300, 8 * expected));
  const candidates: Candidate[] = [];
  for (let k = 0; k < limit; k++) {
    const { i, r } = peaks[k];
    const x0 = i % width;
    const y0 = (i - x0) / width;
    // Sub-pixel peak by a quadratic fit of the response.
    const dx = quadraticPeak(response[i - 1], r, response[i + 1]);
    const dy = quadraticPeak(response[i - width], r, response[i + width]);
    const x = x0 + dx;
    const y = y0 + dy;
    const circle = circleTest(image, x, y, 3) ?? circleTest(image, x, y, 5);
    if (!circle) continue;
    candidates.push({ x, y, response: r, ...circle });
  }
  return candidates;
}

function quadraticPeak(a: number, b: number, c: number): number {
  const d = a - 2 * b + c;
  if (d >= 0) return 0;
  return Math.max(-0.5, Math.min(0.5, (0.5 * (a - c)) / d));
}

const CIRCLE_SAMPLES = 32;

/**
 * Samples a circle around (x, y): an X-junction shows exactly four sectors alternating dark and
 * bright, with opposite sectors alike. Returns the two line directions and the contrast.
 */
function circleTest(
  image: FloatImage,
  x: number,
  y: number,
  radius: number,
): { angle1: number; angle2: number; contrast: number } | null {
  if (x < radius + 1 || y < radius + 1 || x > image.width - radius - 2 || y > image.height - radius - 2) return null;
  const n = CIRCLE_SAMPLES;
  const values = new Float64Array(n);
  let min = Infinity;
  let max = -Infinity;
  for (let k = 0; k < n; k++) {
    const a = (2 * Math.PI * k) / n;
    const v = sampleBilinear(image, x + radius * Math.cos(a), y + radius * Math.sin(a));
    values[k] = v;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  const contrast = max - min;
  if (contrast < 10) return null;
  const mid = (max + min) / 2;
  const transitions: number[] = [];
  for (let k = 0; k < n; k++) {
    const a = values[k] - mid;
    const b = values[(k + 1) % n] - mid;
    if (a < 0 !== b < 0) {
      const t = a / (a - b);
      transitions.push(((k + t) * 2 * Math.PI) / n);
    }
  }
  if (transitions.length !== 4) return null;
  // Sectors must not be slivers, and opposite sectors must be alike (both dark or both bright).
  for (let k = 0; k < 4; k++) {
    const span = (transitions[(k + 1) % 4] - transitions[k] + 2 * Math.PI) % (2 * Math.PI);
    if (span < (2 * Math.PI) / 14) return null;
  }
  // Mean level of each sector: dark ones well below mid, bright ones well above.
  const sectorMeans: number[] = [];
  for (let k = 0; k < 4; k++) {
    const a0 = transitions[k];
    const span = (transitions[(k + 1) % 4] - a0 + 2 * Math.PI) % (2 * Math.PI);
    let acc = 0;
    for (let j = 1; j <= 3; j++) {
      const a = a0 + (span * j) / 4;
      acc += sampleBilinear(image, x + radius * Math.cos(a), y + radius * Math.sin(a));
    }
    sectorMeans.push(acc / 3 - mid);
  }
  if (
    Math.sign(sectorMeans[0]) !== Math.sign(sectorMeans[2]) ||
    Math.sign(sectorMeans[1]) !== Math.sign(sectorMeans[3])
  ) {
    return null;
  }
  if (Math.sign(sectorMeans[0]) === Math.sign(sectorMeans[1])) return null;
  const minMagnitude = 0.2 * contrast;
  if (sectorMeans.some((m) => Math.abs(m) < minMagnitude)) return null;
  // Line directions: the transitions come in opposite pairs (k, k + 2).
  const angle1 = meanAxis(transitions[0], transitions[2]);
  const angle2 = meanAxis(transitions[1], transitions[3]);
  return { angle1, angle2, contrast };
}

/** Mean direction (modulo π) of two angles that should be about π apart. */
function meanAxis(a: number, b: number): number {
  const ca = Math.cos(2 * a) + Math.cos(2 * b);
  const sa = Math.sin(2 * a) + Math.sin(2 * b);
  return Math.atan2(sa, ca) / 2;
}

/** Smallest difference between a direction (radians) and an axis angle, modulo π, in [0, π/2]. */
function axisDifference(direction: number, axis: number): number {
  let d = Math.abs(direction - axis) % Math.PI;
  if (d > Math.PI / 2) d = Math.PI - d;
  return d;
}

// ---------------------------------------------------------------------------------------------
// Neighbour search.

class SpatialIndex {
  private readonly cell: number;
  private readonly gw: number;
  private readonly buckets: Map<number, number[]> = new Map();

  constructor(
    private readonly points: Candidate[],
    width: number,
    height: number,
  ) {
    this.cell = Math.max(8, Math.round(Math.max(width, height) / 40));
    this.gw = Math.ceil(width / this.cell) + 1;
    points.forEach((p, i) => {
      const key = Math.floor(p.y / this.cell) * this.gw + Math.floor(p.x / this.cell);
      const bucket = this.buckets.get(key);
      if (bucket) bucket.push(i);
      else this.buckets.set(key, [i]);
    });
  }

  /** Candidate indices within radius of (x, y). */
  within(x: number, y: number, radius: number): number[] {
    const out: number[] = [];
    const c0 = Math.floor((x - radius) / this.cell);
    const c1 = Math.floor((x + radius) / this.cell);
    const r0 = Math.floor((y - radius) / this.cell);
    const r1 = Math.floor((y + radius) / this.cell);
    for (let r = r0; r <= r1; r++) {
      for (let c = c0; c <= c1; c++) {
        if (c < 0 || r < 0 || c >= this.gw) continue;
        const bucket = this.buckets.get(r * this.gw + c);
        if (!bucket) continue;
        for (const i of bucket) {
          const p = this.points[i];
          if ((p.x - x) ** 2 + (p.y - y) ** 2 <= radius * radius) out.push(i);
        }
      }
    }
    return out;
  }

  nearest(x: number, y: number, radius: number, accept: (i: number) => boolean): number {
    let best = -1;
    let bestD = Infinity;
    for (const i of this.within(x, y, radius)) {
      const p = this.points[i];
      const d = (p.x - x) ** 2 + (p.y - y) ** 2;
      if (d < bestD && accept(i)) {
        best = i;
        bestD = d;
      }
    }
    return best;
  }
}

/**
 * Colour alternation along a grid line: the image just to the left of the segment a→b, sampled
 * near a and near b, must differ in sign relative to the right side (the squares along a line
 * alternate). Returns false when the pattern does not hold.
 */
function alternates(image: FloatImage, ax: number, ay: number, bx: number, by: number): boolean {
  const dx = bx - ax;
  const dy = by - ay;
  const len = Math.hypot(dx, dy);
  if (len < 2) return false;
  const ux = dx / len;
  const uy = dy / len;
  // Left normal (image coordinates): rotate u by −90°.
  const nx = uy;
  const ny = -ux;
  const side = (px: number, py: number, along: number) => {
    const off = 0.22 * len;
    const cx = px + ux * along;
    const cy = py + uy * along;
    return sampleBilinear(image, cx + nx * off, cy + ny * off) - sampleBilinear(image, cx - nx * off, cy - ny * off);
  };
  // Just after a (inside the square between a and b) versus just after b (the next square).
  const inside = side(ax, ay, 0.5 * len);
  const beyond = side(bx, by, 0.5 * len);
  const before = side(ax, ay, -0.5 * len);
  const ok1 = inside * beyond < 0;
  const ok2 = inside * before < 0;
  // The square beyond b or before a may be off the board (white margin); one alternation suffices,
  // but the square between a and b must show a clear left/right difference.
  return Math.abs(inside) > 8 && (ok1 || ok2);
}

// ---------------------------------------------------------------------------------------------
// Grid growing.

interface Grid {
  rows: number;
  cols: number;
  cells: GridCell[]; // row-major
}

function growGrid(
  seed: number,
  candidates: Candidate[],
  index: SpatialIndex,
  image: FloatImage,
  maxDim: number,
): Grid | null {
  const s = candidates[seed];
  // Nearby candidates whose direction from the seed follows one of the seed's lines.
  const radius = Math.max(image.width, image.height) / 3;
  const near = index
    .within(s.x, s.y, radius)
    .filter((i) => i !== seed)
    .sort((a, b) => dist2(candidates[a], s) - dist2(candidates[b], s))
    .slice(0, 24);
  const tol = (12 * Math.PI) / 180;
  const neighbourAlong = (axis: number, exclude: number[]): number => {
    for (const i of near) {
      if (exclude.includes(i)) continue;
      const c = candidates[i];
      const dir = Math.atan2(c.y - s.y, c.x - s.x);
      if (axisDifference(dir, axis) > tol) continue;
      if (Math.min(axisDifference(dir, c.angle1), axisDifference(dir, c.angle2)) > tol) continue;
      if (!alternates(image, s.x, s.y, c.x, c.y)) continue;
      return i;
    }
    return -1;
  };
  const b1 = neighbourAlong(s.angle1, []);
  const b2 = neighbourAlong(s.angle2, [b1]);
  if (b1 < 0 || b2 < 0) return null;

  // Grid stored in a map keyed by (i, j); j runs along b1, i along b2.
  const cells = new Map<string, GridCell>();
  const key = (i: number, j: number) => `${i},${j}`;
  const used = new Set<number>([seed, b1, b2]);
  cells.set(key(0, 0), { x: s.x, y: s.y, candidate: seed });
  cells.set(key(0, 1), { x: candidates[b1].x, y: candidates[b1].y, candidate: b1 });
  cells.set(key(1, 0), { x: candidates[b2].x, y: candidates[b2].y, candidate: b2 });
  let bounds = { i0: 0, i1: 1, j0: 0, j1: 1 };

  const find = (px: number, py: number, tolerance: number, fromX: number, fromY: number): number =>
    index.nearest(
      px,
      py,
      tolerance,
      (i) => !used.has(i) && alternates(image, fromX, fromY, candidates[i].x, candidates[i].y),
    );

  // Complete the 2x2 square.
  {
    const a = cells.get(key(0, 1))!;
    const b = cells.get(key(1, 0))!;
    const px = a.x + b.x - s.x;
    const py = a.y + b.y - s.y;
    const tolerance = 0.3 * Math.min(Math.hypot(a.x - s.x, a.y - s.y), Math.hypot(b.x - s.x, b.y - s.y));
    const d = find(px, py, tolerance, a.x, a.y);
    if (d < 0) return null;
    used.add(d);
    cells.set(key(1, 1), { x: candidates[d].x, y: candidates[d].y, candidate: d });
  }

  // Predicts the next point beyond p1 on the line p0 → p1 (and p_1 before p0 when known), allowing
  // for perspective foreshortening by extrapolating the spacing ratio.
  const predict = (p1: GridCell, p0: GridCell, pm?: GridCell): [number, number, number] => {
    const dx = p1.x - p0.x;
    const dy = p1.y - p0.y;
    let ratio = 1;
    if (pm) {
      const d0 = Math.hypot(p0.x - pm.x, p0.y - pm.y);
      const d1 = Math.hypot(dx, dy);
      if (d0 > 0) ratio = Math.min(1.4, Math.max(0.7, d1 / d0));
    }
    return [p1.x + dx * ratio, p1.y + dy * ratio, Math.hypot(dx, dy) * ratio];
  };

  const tryExtend = (side: 'i0' | 'i1' | 'j0' | 'j1'): boolean => {
    const along = side === 'i0' || side === 'i1' ? 'j' : 'i';
    const sign = side === 'i1' || side === 'j1' ? 1 : -1;
    const edge = bounds[side];
    const next = edge + sign;
    const span = along === 'j' ? [bounds.j0, bounds.j1] : [bounds.i0, bounds.i1];
    const length = span[1] - span[0] + 1;
    const currentOther = along === 'j' ? bounds.i1 - bounds.i0 + 1 : bounds.j1 - bounds.j0 + 1;
    if (currentOther + 1 > maxDim) return false;
    const found: [number, GridCell][] = [];
    let predictedCount = 0;
    for (let t = span[0]; t <= span[1]; t++) {
      const at = (n: number) => (along === 'j' ? cells.get(key(n, t)) : cells.get(key(t, n)));
      const p1 = at(edge);
      const p0 = at(edge - sign);
      if (!p1 || !p0) continue;
      const pm = at(edge - 2 * sign);
      const [px, py, step] = predict(p1, p0, pm);
      const c = find(px, py, 0.3 * step, p1.x, p1.y);
      if (c >= 0) found.push([t, { x: candidates[c].x, y: candidates[c].y, candidate: c }]);
      else {
        predictedCount++;
        found.push([t, { x: px, y: py, candidate: -1 }]);
      }
    }
    const detected = found.filter(([, cell]) => cell.candidate >= 0).length;
    if (detected < Math.max(2, Math.ceil(0.75 * length)) || predictedCount > Math.max(1, Math.floor(0.25 * length))) {
      return false;
    }
    for (const [t, cell] of found) {
      if (cell.candidate >= 0) used.add(cell.candidate);
      cells.set(along === 'j' ? key(next, t) : key(t, next), cell);
    }
    bounds = { ...bounds, [side]: next };
    return true;
  };

  let grew = true;
  let guard = 0;
  while (grew && guard++ < 4 * (maxDim + 2)) {
    grew = false;
    for (const side of ['i1', 'j1', 'i0', 'j0'] as const) {
      if (tryExtend(side)) grew = true;
    }
  }

  const rows = bounds.i1 - bounds.i0 + 1;
  const cols = bounds.j1 - bounds.j0 + 1;
  const out: GridCell[] = [];
  for (let i = bounds.i0; i <= bounds.i1; i++) {
    for (let j = bounds.j0; j <= bounds.j1; j++) {
      const cell = cells.get(key(i, j));
      if (!cell) return null;
      out.push(cell);
    }
  }
  return { rows, cols, cells: out };
}

function debug(message: string): void {
  const hook = (globalThis as { __cbdebug?: (m: string) => void }).__cbdebug;
  if (hook) hook(message);
}

/** Bilinear sampling works on 8-bit pixels too (it only reads data[i]). */
function asSampler(image: GrayImage): FloatImage {
  return image as unknown as FloatImage;
}

function dist2(a: { x: number; y: number }, b: { x: number; y: number }): number {
  return (a.x - b.x) ** 2 + (a.y - b.y) ** 2;
}

// ---------------------------------------------------------------------------------------------
// Refinement, validation and ordering at full resolution.

function finishDetection(
  full: GrayImage,
  cells: { x: number; y: number }[],
  gridRows: number,
  gridCols: number,
  rows: number,
  cols: number,
  refine: boolean,
): CheckerboardDetection | null {
  // Spacing along the grid, for window sizes and tolerances.
  let spacingSum = 0;
  let spacingCount = 0;
  for (let i = 0; i < gridRows; i++) {
    for (let j = 0; j < gridCols; j++) {
      const p = cells[i * gridCols + j];
      if (j + 1 < gridCols) {
        spacingSum += Math.hypot(cells[i * gridCols + j + 1].x - p.x, cells[i * gridCols + j + 1].y - p.y);
        spacingCount++;
      }
      if (i + 1 < gridRows) {
        spacingSum += Math.hypot(cells[(i + 1) * gridCols + j].x - p.x, cells[(i + 1) * gridCols + j].y - p.y);
        spacingCount++;
      }
    }
  }
  const spacing = spacingSum / spacingCount;
  // Minimum local spacing: the window must stay inside the four squares around each corner.
  let minSpacing = Infinity;
  for (let i = 0; i < gridRows; i++) {
    for (let j = 0; j < gridCols; j++) {
      const p = cells[i * gridCols + j];
      if (j + 1 < gridCols)
        minSpacing = Math.min(
          minSpacing,
          Math.hypot(cells[i * gridCols + j + 1].x - p.x, cells[i * gridCols + j + 1].y - p.y),
        );
      if (i + 1 < gridRows)
        minSpacing = Math.min(
          minSpacing,
          Math.hypot(cells[(i + 1) * gridCols + j].x - p.x, cells[(i + 1) * gridCols + j].y - p.y),
        );
    }
  }
  const halfWindow = Math.max(2, Math.min(15, Math.floor(0.5 * minSpacing)));
  // Every corner must be inside the image (a board cut by the frame edge is not a detection).
  if (cells.some((c) => c.x < 1 || c.y < 1 || c.x > full.width - 2 || c.y > full.height - 2)) {
    debug('grid reaches outside the image');
    return null;
  }
  const refined = cells.map((c) => ({ x: c.x, y: c.y }));
  const sharpness: number[] = [];
  if (refine) {
    // Refine on a lightly smoothed crop around the board: a σ = 1 px blur removes most of the
    // sampling bias of the gradient criterion on sharp, pixel-integrated edges (< 0.03 px).
    const margin = halfWindow + 8;
    const x0 = Math.max(0, Math.floor(Math.min(...cells.map((c) => c.x)) - margin));
    const y0 = Math.max(0, Math.floor(Math.min(...cells.map((c) => c.y)) - margin));
    const x1 = Math.min(full.width - 1, Math.ceil(Math.max(...cells.map((c) => c.x)) + margin));
    const y1 = Math.min(full.height - 1, Math.ceil(Math.max(...cells.map((c) => c.y)) + margin));
    const crop = cropToFloat(full, x0, y0, x1 - x0 + 1, y1 - y0 + 1);
    const smooth = gaussianBlur(crop, 1);
    for (let k = 0; k < refined.length; k++) {
      const r = refineCorner(smooth, refined[k].x - x0, refined[k].y - y0, halfWindow);
      if (!r) {
        debug(`refine failed at corner ${k} (${refined[k].x.toFixed(1)}, ${refined[k].y.toFixed(1)}) hw ${halfWindow}`);
        return null;
      }
      refined[k] = { x: r.x + x0, y: r.y + y0 };
      sharpness.push(r.sharpness);
    }
  }
  // Homography check: the corners must lie on a projective grid (lens distortion allowed).
  const src: number[] = [];
  const dst: number[] = [];
  for (let i = 0; i < gridRows; i++) {
    for (let j = 0; j < gridCols; j++) {
      src.push(j, i);
      dst.push(refined[i * gridCols + j].x, refined[i * gridCols + j].y);
    }
  }
  const H = fitHomography(src, dst, gridRows * gridCols);
  if (!H) return null;
  let sq = 0;
  let worst = 0;
  for (let k = 0; k < gridRows * gridCols; k++) {
    const [u, v] = applyHomography(H, src[2 * k], src[2 * k + 1]);
    const e = Math.hypot(u - dst[2 * k], v - dst[2 * k + 1]);
    sq += e * e;
    worst = Math.max(worst, e);
  }
  const rms = Math.sqrt(sq / (gridRows * gridCols));
  if (rms > 0.08 * spacing || worst > 0.3 * spacing) {
    debug(`homography rms ${rms.toFixed(2)} worst ${worst.toFixed(2)} spacing ${spacing.toFixed(1)}`);
    return null;
  }

  // Every corner must be an X-junction at full resolution (the board's outer edge, where a
  // square meets the white margin, lies on the same grid but is not): allow 10 % misses (glare).
  let notX = 0;
  for (const c of refined) if (!isXJunction(full, c.x, c.y, spacing)) notX++;
  if (notX > Math.floor(0.1 * refined.length)) {
    debug(`${notX} of ${refined.length} corners are not X-junctions at full resolution`);
    return null;
  }
  const ordered = orderCorners(asSampler(full), refined, gridRows, gridCols, rows, cols);
  if (!ordered) return null;
  sharpness.sort((a, b) => a - b);
  return {
    corners: ordered.corners,
    rows,
    cols,
    spacingPx: spacing,
    sharpness: sharpness.length ? sharpness[sharpness.length >> 1] : 0,
    homographyRmsPx: rms,
    originFromColours: ordered.originFromColours,
  };
}

/**
 * Sub-pixel corner refinement (the gradient-orthogonality criterion of OpenCV's cornerSubPix):
 * every gradient near a saddle point is orthogonal to the vector from the corner to its pixel, so
 * the corner solves Σ w g gᵀ q = Σ w g gᵀ p. Iterated with a Gaussian-weighted window.
 */
export function refineCorner(
  image: FloatImage,
  x0: number,
  y0: number,
  halfWindow: number,
  maxIterations = 40,
): { x: number; y: number; sharpness: number } | null {
  const { data, width, height } = image;
  let x = x0;
  let y = y0;
  const sigma = Math.max(1, halfWindow * 0.6);
  const inv2s2 = 1 / (2 * sigma * sigma);
  let sharpness = 0;
  for (let iter = 0; iter < maxIterations; iter++) {
    // Gradients at whole pixels (no resampling), weighted by a window centred on the estimate.
    const cx = Math.round(x);
    const cy = Math.round(y);
    // Near the image border the window shrinks to the pixels that exist.
    const hw = Math.min(halfWindow, cx - 1, cy - 1, width - 2 - cx, height - 2 - cy);
    if (hw < 2) return null;
    let a11 = 0;
    let a12 = 0;
    let a22 = 0;
    let b1 = 0;
    let b2 = 0;
    let maxGrad = 0;
    let minV = Infinity;
    let maxV = -Infinity;
    for (let py = cy - hw; py <= cy + hw; py++) {
      const dy = py - y;
      for (let px = cx - hw; px <= cx + hw; px++) {
        const dx = px - x;
        const i = py * width + px;
        const gx = (data[i + 1] - data[i - 1]) / 2;
        const gy = (data[i + width] - data[i - width]) / 2;
        const wgt = Math.exp(-(dx * dx + dy * dy) * inv2s2);
        const gxx = wgt * gx * gx;
        const gxy = wgt * gx * gy;
        const gyy = wgt * gy * gy;
        a11 += gxx;
        a12 += gxy;
        a22 += gyy;
        b1 += gxx * px + gxy * py;
        b2 += gxy * px + gyy * py;
        const g = Math.hypot(gx, gy);
        if (g > maxGrad) maxGrad = g;
        const v = data[i];
        if (v < minV) minV = v;
        if (v > maxV) maxV = v;
      }
    }
    const det = a11 * a22 - a12 * a12;
    if (!(det > 1e-9 * (a11 + a22) * (a11 + a22))) return null;
    const nx = (a22 * b1 - a12 * b2) / det;
    const ny = (a11 * b2 - a12 * b1) / det;
    const step = (nx - x) ** 2 + (ny - y) ** 2;
    x = nx;
    y = ny;
    sharpness = maxV > minV ? maxGrad / (maxV - minV) : 0;
    if (Math.hypot(x - x0, y - y0) > Math.max(2, halfWindow)) return null;
    if (step < 1e-8) break;
  }
  if (x < 0 || y < 0 || x > width - 1 || y > height - 1) return null;
  return { x, y, sharpness };
}

/**
 * Puts refined grid corners (row-major gridRows x gridCols) into the documented order for a
 * rows x cols board. Null when the grid does not fit the board.
 */
function orderCorners(
  image: FloatImage,
  cells: { x: number; y: number }[],
  gridRows: number,
  gridCols: number,
  rows: number,
  cols: number,
): { corners: Float64Array; originFromColours: boolean } | null {
  // All 8 symmetries of the grid: (transpose?, flip rows?, flip cols?); keep those with the right
  // shape and handedness.
  type Layout = { at: (r: number, c: number) => { x: number; y: number } };
  const layouts: Layout[] = [];
  for (const transpose of [false, true]) {
    const R = transpose ? gridCols : gridRows;
    const C = transpose ? gridRows : gridCols;
    if (R !== rows || C !== cols) continue;
    for (const flipR of [false, true]) {
      for (const flipC of [false, true]) {
        const at = (r: number, c: number) => {
          const rr = flipR ? R - 1 - r : r;
          const cc = flipC ? C - 1 - c : c;
          const gi = transpose ? cc : rr;
          const gj = transpose ? rr : cc;
          return cells[gi * gridCols + gj];
        };
        const p0 = at(0, 0);
        const px = at(0, 1);
        const py = at(1, 0);
        const cross = (px.x - p0.x) * (py.y - p0.y) - (px.y - p0.y) * (py.x - p0.x);
        if (cross > 0) layouts.push({ at });
      }
    }
  }
  if (layouts.length === 0) return null;
  const originFromColours = (rows + cols) % 2 === 1;
  let chosen: Layout;
  if (originFromColours) {
    // The first inner square (corners 0, 1, cols, cols + 1) must be dark: compare its centre with
    // the next square along the first row (which has the other colour).
    const score = (layout: Layout) => {
      const centre = (r: number, c: number) => {
        const a = layout.at(r, c);
        const b = layout.at(r, c + 1);
        const d = layout.at(r + 1, c);
        const e = layout.at(r + 1, c + 1);
        return sampleBilinear(image, (a.x + b.x + d.x + e.x) / 4, (a.y + b.y + d.y + e.y) / 4);
      };
      return centre(0, 1) - centre(0, 0); // positive when square (0, 0) is darker
    };
    chosen = layouts.reduce((best, l) => (score(l) > score(best) ? l : best));
  } else {
    const rightwards = (layout: Layout) => {
      const a = layout.at(0, 0);
      const b = layout.at(0, cols - 1);
      const c = layout.at(rows - 1, 0);
      return (b.x - a.x) / Math.hypot(b.x - a.x, b.y - a.y) + (1e-3 * (c.y - a.y)) / Math.hypot(c.x - a.x, c.y - a.y);
    };
    chosen = layouts.reduce((best, l) => (rightwards(l) > rightwards(best) ? l : best));
  }
  const corners = new Float64Array(rows * cols * 2);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const p = chosen.at(r, c);
      corners[2 * (r * cols + c)] = p.x;
      corners[2 * (r * cols + c) + 1] = p.y;
    }
  }
  return { corners, originFromColours };
}

/** Board points (metres) matching the corner order: (c · square, r · square, 0), row-major. */
export function checkerboardObjectPoints(rows: number, cols: number, squareSizeM: number): Float64Array {
  const out = new Float64Array(rows * cols * 3);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      out[3 * (r * cols + c)] = c * squareSizeM;
      out[3 * (r * cols + c) + 1] = r * squareSizeM;
    }
  }
  return out;
}
