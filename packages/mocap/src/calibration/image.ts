/**
 * Small grayscale image operations for calibration (float images, row-major).
 * Pixel centres are at integer coordinates (OpenCV's convention): pixel (x, y) covers
 * [x - 0.5, x + 0.5] x [y - 0.5, y + 0.5].
 */
export interface FloatImage {
  data: Float32Array;
  width: number;
  height: number;
}

export function toFloatImage(gray: Uint8Array, width: number, height: number): FloatImage {
  if (gray.length < width * height) {
    throw new Error(`Image buffer has ${gray.length} bytes, expected ${width} x ${height} = ${width * height}`);
  }
  const data = new Float32Array(width * height);
  for (let i = 0; i < data.length; i++) data[i] = gray[i];
  return { data, width, height };
}

/** Source ranges and weights of an area (box) resampling along one axis. */
function areaWeights(
  srcSize: number,
  dstSize: number,
): { start: Int32Array; count: Int32Array; weights: Float32Array[] } {
  const scale = srcSize / dstSize;
  const start = new Int32Array(dstSize);
  const count = new Int32Array(dstSize);
  const weights: Float32Array[] = [];
  for (let d = 0; d < dstSize; d++) {
    const a = d * scale;
    const b = (d + 1) * scale;
    const i0 = Math.floor(a);
    const i1 = Math.min(srcSize, Math.ceil(b));
    const w = new Float32Array(i1 - i0);
    for (let i = i0; i < i1; i++) w[i - i0] = (Math.min(b, i + 1) - Math.max(a, i)) / scale;
    start[d] = i0;
    count[d] = i1 - i0;
    weights.push(w);
  }
  return { start, count, weights };
}

/** Area-averaging downscale (anti-aliased) to dstWidth x dstHeight; accepts 8-bit or float pixels. */
export function resizeArea(
  image: { data: Float32Array | Uint8Array; width: number; height: number },
  dstWidth: number,
  dstHeight: number,
): FloatImage {
  const { data, width, height } = image;
  if (dstWidth === width && dstHeight === height) return { data: Float32Array.from(data), width, height };
  const wx = areaWeights(width, dstWidth);
  const wy = areaWeights(height, dstHeight);
  const tmp = new Float32Array(dstWidth * height);
  for (let y = 0; y < height; y++) {
    const row = y * width;
    for (let x = 0; x < dstWidth; x++) {
      const s = wx.start[x];
      const w = wx.weights[x];
      let acc = 0;
      for (let k = 0; k < w.length; k++) acc += w[k] * data[row + s + k];
      tmp[y * dstWidth + x] = acc;
    }
  }
  const out = new Float32Array(dstWidth * dstHeight);
  for (let y = 0; y < dstHeight; y++) {
    const s = wy.start[y];
    const w = wy.weights[y];
    for (let x = 0; x < dstWidth; x++) {
      let acc = 0;
      for (let k = 0; k < w.length; k++) acc += w[k] * tmp[(s + k) * dstWidth + x];
      out[y * dstWidth + x] = acc;
    }
  }
  return { data: out, width: dstWidth, height: dstHeight };
}

/** A rectangle of an 8-bit or float image, as a float image. */
export function cropToFloat(
  image: { data: Float32Array | Uint8Array; width: number; height: number },
  x0: number,
  y0: number,
  w: number,
  h: number,
): FloatImage {
  const data = new Float32Array(w * h);
  for (let y = 0; y < h; y++) {
    const row = (y0 + y) * image.width + x0;
    for (let x = 0; x < w; x++) data[y * w + x] = image.data[row + x];
  }
  return { data, width: w, height: h };
}

/** Separable Gaussian blur with clamped borders. */
export function gaussianBlur(image: FloatImage, sigma: number): FloatImage {
  const { data, width, height } = image;
  if (sigma <= 0) return { data: data.slice(), width, height };
  const radius = Math.max(1, Math.ceil(3 * sigma));
  const kernel = new Float32Array(2 * radius + 1);
  let sum = 0;
  for (let i = -radius; i <= radius; i++) {
    kernel[i + radius] = Math.exp(-(i * i) / (2 * sigma * sigma));
    sum += kernel[i + radius];
  }
  for (let i = 0; i < kernel.length; i++) kernel[i] /= sum;
  const tmp = new Float32Array(width * height);
  for (let y = 0; y < height; y++) {
    const row = y * width;
    for (let x = 0; x < width; x++) {
      let acc = 0;
      if (x >= radius && x < width - radius) {
        for (let k = -radius; k <= radius; k++) acc += kernel[k + radius] * data[row + x + k];
      } else {
        for (let k = -radius; k <= radius; k++) {
          const xx = Math.min(width - 1, Math.max(0, x + k));
          acc += kernel[k + radius] * data[row + xx];
        }
      }
      tmp[row + x] = acc;
    }
  }
  const out = new Float32Array(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let acc = 0;
      if (y >= radius && y < height - radius) {
        for (let k = -radius; k <= radius; k++) acc += kernel[k + radius] * tmp[(y + k) * width + x];
      } else {
        for (let k = -radius; k <= radius; k++) {
          const yy = Math.min(height - 1, Math.max(0, y + k));
          acc += kernel[k + radius] * tmp[yy * width + x];
        }
      }
      out[y * width + x] = acc;
    }
  }
  return { data: out, width, height };
}

/** Bilinear sample with clamped borders. */
export function sampleBilinear(image: FloatImage, x: number, y: number): number {
  const { data, width, height } = image;
  const cx = Math.min(width - 1.000001, Math.max(0, x));
  const cy = Math.min(height - 1.000001, Math.max(0, y));
  const x0 = Math.floor(cx);
  const y0 = Math.floor(cy);
  const fx = cx - x0;
  const fy = cy - y0;
  const i = y0 * width + x0;
  const x1 = x0 + 1 < width ? 1 : 0;
  const y1 = y0 + 1 < height ? width : 0;
  return (1 - fy) * ((1 - fx) * data[i] + fx * data[i + x1]) + fy * ((1 - fx) * data[i + y1] + fx * data[i + y1 + x1]);
}
