import { z } from 'zod';

/**
 * What a calibrated camera may be, whatever file it came from (issue 20, item 14: sizes and
 * matrices of 1e308, a width given as the string "1e400" and a height as [7], and names of 100 KB
 * of HTML were all stored). Physically plausible, not merely finite: a phone or lab camera's image,
 * a pinhole focal length between a 0.6° and a 179° field of view, its principal point on or near
 * the image, OpenCV's five distortion coefficients, a rotation matrix, and a lab-sized translation.
 */
export const CAMERA_LIMITS = {
  nameMaxLength: 64,
  /** Pixels per image side: from a thumbnail to past 8K (7680 x 4320). */
  imageSidePx: { min: 16, max: 16_384 },
  /** Focal length over the image's longer side (1 for a phone's main camera in portrait: ~0.9). */
  focalPerSide: { min: 0.005, max: 100 },
  /** Principal point, as a fraction of the image side, measured from the image's top-left corner. */
  principalPointPerSide: { min: -0.5, max: 1.5 },
  /** |k1|, |k2|, |p1|, |p2|, |k3|: phone lenses fit well under 1, over-fitted k3 reach tens. */
  distortionMaxAbs: 100,
  /** |RRᵀ − I| and |det R − 1|, entry by entry: files with 6 decimals stay well inside. */
  rotationTolerance: 1e-4,
  /** Metres of each translation component: a lab, a gym, a sports field. */
  translationMaxAbsM: 1_000,
} as const;

/** Letters and digits of any script, spaces and _ - . , ( ) # +: no markup, no control characters. */
const CAMERA_NAME_PATTERN = /^[\p{L}\p{N} _.,()#+-]+$/u;

export const cameraMessages = {
  name: `A camera's name is 1 to ${CAMERA_LIMITS.nameMaxLength} letters, digits, spaces and _ - . , ( ) # +.`,
  imageSide: (side: 'width' | 'height') =>
    `The image ${side} must be a whole number of pixels from ${CAMERA_LIMITS.imageSidePx.min} to ${CAMERA_LIMITS.imageSidePx.max}.`,
  intrinsics: 'The intrinsic matrix must be 3 x 3 numbers in pixels: fx 0 cx, 0 fy cy, 0 0 1.',
  focalLength: `The focal lengths (fx, fy) must be ${CAMERA_LIMITS.focalPerSide.min} to ${CAMERA_LIMITS.focalPerSide.max} times the image's longer side, in pixels.`,
  principalPoint: 'The principal point (cx, cy) must lie on the image or within half an image of it, in pixels.',
  distortion: `The distortion must be 5 numbers (k1, k2, p1, p2, k3), each between -${CAMERA_LIMITS.distortionMaxAbs} and ${CAMERA_LIMITS.distortionMaxAbs}.`,
  rotation: 'The rotation must be a 3 x 3 rotation matrix: orthonormal rows, determinant +1.',
  translation: `The translation must be 3 numbers of metres, each between -${CAMERA_LIMITS.translationMaxAbsM} and ${CAMERA_LIMITS.translationMaxAbsM}.`,
} as const;

const imageSide = (side: 'width' | 'height') =>
  z
    .number({ error: cameraMessages.imageSide(side) })
    .int(cameraMessages.imageSide(side))
    .min(CAMERA_LIMITS.imageSidePx.min, cameraMessages.imageSide(side))
    .max(CAMERA_LIMITS.imageSidePx.max, cameraMessages.imageSide(side));

/** `count` finite numbers (no strings, no arrays, no infinities), each within ±maxAbs when given. */
const numbers = (count: number, message: string, maxAbs = Number.MAX_VALUE) =>
  z
    .array(z.number({ error: message }).min(-maxAbs, message).max(maxAbs, message), { error: message })
    .length(count, message);

const determinant3 = (m: number[]) =>
  m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) + m[2] * (m[3] * m[7] - m[4] * m[6]);

function isRotation(m: number[]): boolean {
  const tolerance = CAMERA_LIMITS.rotationTolerance;
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) {
      const dot = m[i * 3] * m[j * 3] + m[i * 3 + 1] * m[j * 3 + 1] + m[i * 3 + 2] * m[j * 3 + 2];
      if (Math.abs(dot - (i === j ? 1 : 0)) > tolerance) return false;
    }
  }
  return Math.abs(determinant3(m) - 1) <= tolerance;
}

/**
 * One camera as every calibration file reader returns it (row-major matrices as plain arrays):
 * the one check applied to each format's result before a camera is stored or used.
 */
export const cameraParametersSchema = z
  .object({
    name: z
      .string({ error: cameraMessages.name })
      .min(1, cameraMessages.name)
      .max(CAMERA_LIMITS.nameMaxLength, cameraMessages.name)
      .regex(CAMERA_NAME_PATTERN, cameraMessages.name),
    imageSize: z.object(
      { width: imageSide('width'), height: imageSide('height') },
      { error: cameraMessages.imageSide('width') },
    ),
    intrinsics: numbers(9, cameraMessages.intrinsics),
    distortion: numbers(5, cameraMessages.distortion, CAMERA_LIMITS.distortionMaxAbs),
    rotationCameraFromWorld: numbers(9, cameraMessages.rotation),
    translationCameraFromWorldM: numbers(3, cameraMessages.translation, CAMERA_LIMITS.translationMaxAbsM),
  })
  // Zod runs this after the fields' own checks even when they failed: each check here looks only at fields that passed.
  .superRefine(({ imageSize, intrinsics: K, rotationCameraFromWorld: R }, context) => {
    const issue = (path: string, message: string) => context.addIssue({ code: 'custom', path: [path], message });
    const sizeOk = [imageSize?.width, imageSize?.height].every((side) => imageSide('width').safeParse(side).success);
    const nineNumbers = (values: unknown) =>
      Array.isArray(values) && values.length === 9 && values.every((value) => Number.isFinite(value));
    if (nineNumbers(K)) {
      if (K[3] !== 0 || K[6] !== 0 || K[7] !== 0 || K[8] !== 1 || Math.abs(K[1]) > K[0])
        issue('intrinsics', cameraMessages.intrinsics);
      if (sizeOk) {
        const { width, height } = imageSize;
        const side = Math.max(width, height);
        const { focalPerSide, principalPointPerSide: pp } = CAMERA_LIMITS;
        if (![K[0], K[4]].every((f) => f >= focalPerSide.min * side && f <= focalPerSide.max * side))
          issue('intrinsics', cameraMessages.focalLength);
        if (!(K[2] >= pp.min * width && K[2] <= pp.max * width && K[5] >= pp.min * height && K[5] <= pp.max * height))
          issue('intrinsics', cameraMessages.principalPoint);
      }
    }
    if (nineNumbers(R) && !isRotation(R)) issue('rotationCameraFromWorld', cameraMessages.rotation);
  });
export type CameraParameters = z.infer<typeof cameraParametersSchema>;
