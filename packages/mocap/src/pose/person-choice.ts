import type { PoseRegion } from './region.ts';

/**
 * Detected people ranked by how likely each is the subject, most likely first. Tracking one person
 * among bystanders: when someone was tracked before, only people near where they were (centre within
 * half a region size: anyone farther is someone else), nearest first; otherwise everyone, the largest
 * first with a preference for the centre of the image, as the subject is usually the person filmed,
 * nearest to the camera and centred.
 */
export function rankPeople<T extends { region: PoseRegion }>(
  detections: readonly T[],
  preferNear: PoseRegion | null,
  imageWidth: number,
  imageHeight: number,
): T[] {
  if (preferNear) {
    const distance = ({ region }: T) =>
      Math.hypot(region.centerX - preferNear.centerX, region.centerY - preferNear.centerY);
    return detections
      .filter((detection) => distance(detection) < preferNear.sizePx / 2)
      .sort((a, b) => distance(a) - distance(b));
  }
  const halfDiagonal = Math.hypot(imageWidth, imageHeight) / 2;
  const merit = ({ region }: T) => {
    const offCentre = Math.hypot(region.centerX - imageWidth / 2, region.centerY - imageHeight / 2) / halfDiagonal;
    return region.sizePx * (1 - 0.5 * offCentre);
  };
  return [...detections].sort((a, b) => merit(b) - merit(a));
}
