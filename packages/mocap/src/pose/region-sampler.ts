import type { PoseRegion } from './region.ts';

/** An RGB image, rows top to bottom, 3 bytes a pixel (what decodeFrames gives in 'rgb24'). */
export interface RgbImage {
  width: number;
  height: number;
  data: Uint8Array;
}

/**
 * Resamples a rotated square region of an image into a sizePx x sizePx float RGB tensor buffer with
 * bilinear interpolation, mapping 0..255 to [low, high]; outside the image is black (low). Writes
 * into `out` (sizePx * sizePx * 3), so a tracking loop allocates nothing per frame.
 */
export function sampleRegion(
  image: RgbImage,
  region: PoseRegion,
  sizePx: number,
  valueRange: readonly [number, number],
  out: Float32Array,
): void {
  const [low, high] = valueRange;
  const gain = (high - low) / 255;
  const cos = Math.cos(region.rotationRad);
  const sin = Math.sin(region.rotationRad);
  const step = region.sizePx / sizePx;
  const { width, height, data } = image;
  // Pixel (i, j) of the output samples the image at its centre; image pixel centres sit at +0.5.
  const originU = -region.sizePx / 2 + step / 2;
  let o = 0;
  for (let row = 0; row < sizePx; row++) {
    const dv = originU + row * step;
    for (let column = 0; column < sizePx; column++) {
      const du = originU + column * step;
      const x = region.centerX + du * cos - dv * sin - 0.5;
      const y = region.centerY + du * sin + dv * cos - 0.5;
      const x0 = Math.floor(x);
      const y0 = Math.floor(y);
      if (x0 < -1 || y0 < -1 || x0 >= width || y0 >= height) {
        out[o++] = low;
        out[o++] = low;
        out[o++] = low;
        continue;
      }
      const fx = x - x0;
      const fy = y - y0;
      const xa = x0 < 0 ? 0 : x0;
      const xb = x0 + 1 >= width ? width - 1 : x0 + 1;
      const ya = y0 < 0 ? 0 : y0;
      const yb = y0 + 1 >= height ? height - 1 : y0 + 1;
      const w00 = (1 - fx) * (1 - fy);
      const w01 = fx * (1 - fy);
      const w10 = (1 - fx) * fy;
      const w11 = fx * fy;
      const p00 = (ya * width + xa) * 3;
      const p01 = (ya * width + xb) * 3;
      const p10 = (yb * width + xa) * 3;
      const p11 = (yb * width + xb) * 3;
      for (let channel = 0; channel < 3; channel++) {
        const value =
          w00 * data[p00 + channel] + w01 * data[p01 + channel] + w10 * data[p10 + channel] + w11 * data[p11 + channel];
        out[o++] = low + gain * value;
      }
    }
  }
}
