/**
 * Drawing on RGB images (rows top to bottom, 3 bytes a pixel): the few primitives the result
 * images need — dots and thick lines — with coordinates in pixels (centres at integers, as
 * OpenCV's). Everything outside the image is clipped.
 */
export interface RgbImage {
  data: Uint8Array;
  width: number;
  height: number;
}

export type Rgb = readonly [number, number, number];

/** Fills the disc of `radius` pixels around (x, y). */
export function fillDisc(image: RgbImage, x: number, y: number, radius: number, colour: Rgb): void {
  if (!Number.isFinite(x) || !Number.isFinite(y)) return;
  const x0 = Math.max(0, Math.floor(x - radius));
  const x1 = Math.min(image.width - 1, Math.ceil(x + radius));
  const y0 = Math.max(0, Math.floor(y - radius));
  const y1 = Math.min(image.height - 1, Math.ceil(y + radius));
  const r2 = radius * radius;
  for (let py = y0; py <= y1; py++) {
    for (let px = x0; px <= x1; px++) {
      if ((px - x) * (px - x) + (py - y) * (py - y) > r2) continue;
      const i = (py * image.width + px) * 3;
      image.data[i] = colour[0];
      image.data[i + 1] = colour[1];
      image.data[i + 2] = colour[2];
    }
  }
}

/** Draws the ring of `radius` pixels around (x, y), `thickness` pixels wide. */
export function strokeCircle(
  image: RgbImage,
  x: number,
  y: number,
  radius: number,
  thickness: number,
  colour: Rgb,
): void {
  const steps = Math.max(12, Math.ceil(2 * Math.PI * radius));
  for (let k = 0; k < steps; k++) {
    const angle = (2 * Math.PI * k) / steps;
    fillDisc(image, x + radius * Math.cos(angle), y + radius * Math.sin(angle), thickness / 2, colour);
  }
}

/** Draws the segment from (x0, y0) to (x1, y1), `thickness` pixels wide with round ends. */
export function drawLine(
  image: RgbImage,
  x0: number,
  y0: number,
  x1: number,
  y1: number,
  thickness: number,
  colour: Rgb,
): void {
  if (![x0, y0, x1, y1].every(Number.isFinite)) return;
  const length = Math.hypot(x1 - x0, y1 - y0);
  // A segment mostly off-image (a point projected near the horizon) is drawn only where it is visible.
  const steps = Math.min(Math.ceil(length * 2), 4 * (image.width + image.height));
  const radius = Math.max(0.5, thickness / 2);
  for (let k = 0; k <= steps; k++) {
    const t = steps === 0 ? 0 : k / steps;
    const x = x0 + (x1 - x0) * t;
    const y = y0 + (y1 - y0) * t;
    if (x < -radius || y < -radius || x > image.width + radius || y > image.height + radius) continue;
    fillDisc(image, x, y, radius, colour);
  }
}
