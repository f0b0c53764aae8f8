import type { RgbImage } from '../render/raster.ts';
import type { FaceRegion } from './face-regions.ts';

/**
 * Box-blur passes (each horizontal then vertical): three make it close to a Gaussian of σ ≈ the
 * box's radius (the central limit theorem; Wells 1986, "Efficient synthesis of Gaussian filters by
 * cascaded uniform filters", IEEE PAMI 8(2)).
 */
const PASSES = 3;
/**
 * Blur radius per side of the square: an eighth, so σ ≈ a quarter of a head height (the square is
 * 2 head heights), several times an eye's size: eyes, brows and mouth merge into the skin (our
 * choice; the face test measures what is left).
 */
const RADIUS_PER_SIDE = 1 / 8;

/**
 * Blurs each region of an RGB frame in place. Regions are in pixels of the keypoints' images and
 * scaled by `scale` to the frame's (a frame decoded smaller than the video); blur reads only
 * pixels inside its region (edges repeated), so nothing of the face leaks out of it and nothing
 * around it is changed. `scratch` holds one line and is reused between frames.
 */
export function blurRegions(
  image: RgbImage,
  regions: readonly FaceRegion[],
  scale: number,
  scratch: BlurScratch,
): void {
  for (const region of regions) {
    const x0 = Math.max(0, Math.floor((region.centreX - region.halfSidePx) * scale));
    const x1 = Math.min(image.width, Math.ceil((region.centreX + region.halfSidePx) * scale));
    const y0 = Math.max(0, Math.floor((region.centreY - region.halfSidePx) * scale));
    const y1 = Math.min(image.height, Math.ceil((region.centreY + region.halfSidePx) * scale));
    if (!(x1 > x0 && y1 > y0)) continue;
    const radius = Math.max(1, Math.round(2 * region.halfSidePx * scale * RADIUS_PER_SIDE));
    for (let pass = 0; pass < PASSES; pass++) {
      for (let y = y0; y < y1; y++) blurLine(image.data, (y * image.width + x0) * 3, 3, x1 - x0, radius, scratch);
      for (let x = x0; x < x1; x++)
        blurLine(image.data, (y0 * image.width + x) * 3, image.width * 3, y1 - y0, radius, scratch);
    }
  }
}

/** A reusable line buffer for blurRegions. */
export class BlurScratch {
  line = new Uint8Array(0);

  lineOf(pixels: number): Uint8Array {
    if (this.line.length < pixels * 3) this.line = new Uint8Array(pixels * 3);
    return this.line;
  }
}

/** A running-sum box blur of `count` RGB pixels starting at `start`, `stride` bytes apart, edges repeated. */
function blurLine(
  data: Uint8Array,
  start: number,
  stride: number,
  count: number,
  radius: number,
  scratch: BlurScratch,
) {
  const line = scratch.lineOf(count);
  for (let i = 0; i < count; i++) {
    const at = start + i * stride;
    line[i * 3] = data[at];
    line[i * 3 + 1] = data[at + 1];
    line[i * 3 + 2] = data[at + 2];
  }
  const width = 2 * radius + 1;
  const clamp = (i: number) => (i < 0 ? 0 : i >= count ? count - 1 : i);
  for (let channel = 0; channel < 3; channel++) {
    let sum = 0;
    for (let k = -radius; k <= radius; k++) sum += line[clamp(k) * 3 + channel];
    for (let i = 0; i < count; i++) {
      data[start + i * stride + channel] = Math.round(sum / width);
      sum += line[clamp(i + radius + 1) * 3 + channel] - line[clamp(i - radius) * 3 + channel];
    }
  }
}
