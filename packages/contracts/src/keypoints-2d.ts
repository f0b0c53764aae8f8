import { z } from 'zod';

/**
 * 2D keypoints made elsewhere, given to the engine instead of detecting them in the videos (issue 24):
 * the OpenPose JSON layout (one file per frame, as OpenPose, RTMPose/rtmlib and Pose2Sim write it)
 * and Kinetrace's own keypoints JSON (one file per camera). The engine (`kinetrace process`) and the
 * server's import validate with these schemas, so a bad file is refused with the field at fault.
 */

/** The keypoint sets an OpenPose-layout file may hold; the engine maps each onto the keypoints it needs. */
export const KEYPOINT_SETS = ['body25', 'body25b', 'coco17', 'halpe26'] as const;
export type KeypointSetName = (typeof KEYPOINT_SETS)[number];

/**
 * Where a camera's 2D keypoints came from: our pose model, given (imported, another detector), or the
 * camera's phone (issue 24: found in its browser, checked by the server before use).
 */
export const keypoints2dSourceSchema = z.enum(['detected', 'given', 'phone']);
export type Keypoints2dSource = z.infer<typeof keypoints2dSourceSchema>;

export const KEYPOINTS_2D_LIMITS = {
  /** People in one frame's file: a crowded lab scene, far below what would exhaust memory. */
  maxPeople: 64,
  /** Keypoints per person: Halpe's 136 (body, feet, face, hands) is the largest common set. */
  maxKeypoints: 136,
  /** Frames in one camera's Kinetrace keypoints file: 10 minutes at 240 fps. */
  maxFrames: 144_000,
  keypointNameMaxLength: 32,
  /**
   * Keypoint files in one import: up to 16 cameras' OpenPose files, one per frame, and a trial is at most
   * 3,600 frames (60 s at 60 fps, 30 s at 120, 15 s at 240: RECORDING_LIMIT_S).
   */
  maxImportFiles: 16 * 3_600,
} as const;

export const keypoints2dMessages = {
  triplets: 'Keypoints must be x, y, confidence triplets: a list of numbers whose length is a multiple of 3.',
  confidence: 'A confidence must be between 0 and 1.',
  frameLength: (values: number) =>
    `Each frame must hold x, y and confidence for every keypoint named in keypointNames: ${values} values, or null where nobody was found.`,
  timestamps: 'timestampsS must hold one time per frame, in seconds, increasing.',
  format: 'format must be "kinetrace-keypoints-2d".',
} as const;

/** A pixel coordinate or a confidence; null where a value is missing (JSON has no NaN). */
const keypointValue = z.number().finite().nullable();

const tripletList = z
  .array(z.number().finite())
  .max(KEYPOINTS_2D_LIMITS.maxKeypoints * 3)
  .refine((values) => values.length % 3 === 0, keypoints2dMessages.triplets);

/**
 * One frame's file in the OpenPose layout (OpenPose doc/02_output.md, "JSON-UI Output Format"):
 * `people[].pose_keypoints_2d` = x0, y0, c0, x1, y1, c1, … in pixels of the image, a keypoint not
 * found written 0, 0, 0; a person without pose_keypoints_2d is nobody. Other fields (version, person_id, face and hand keypoints) are ignored.
 */
export const openPoseFrameSchema = z.object({
  // Pose2Sim writes {} for a frame where it kept nobody.
  people: z.array(z.object({ pose_keypoints_2d: tripletList.default([]) })).max(KEYPOINTS_2D_LIMITS.maxPeople),
});
export type OpenPoseFrame = z.infer<typeof openPoseFrameSchema>;

/**
 * Kinetrace's keypoints JSON, one file per camera (what `keypoints2DToJson` in the engine writes):
 * per frame the tracked person's x, y, confidence for each of `keypointNames` (null values where a
 * keypoint was not found, a null frame where nobody was), in pixels of `imageSize`; optionally the
 * other people seen, shaped like `frames`; and the frames' times when no video gives them.
 */
export const kinetraceKeypoints2dSchema = z
  .object({
    format: z.literal('kinetrace-keypoints-2d', { error: keypoints2dMessages.format }),
    version: z.literal(1),
    keypointNames: z
      .array(z.string().min(1).max(KEYPOINTS_2D_LIMITS.keypointNameMaxLength))
      .min(1)
      .max(KEYPOINTS_2D_LIMITS.maxKeypoints),
    imageSize: z.object({
      width: z.number().int().positive().max(16_384),
      height: z.number().int().positive().max(16_384),
    }),
    timestampsS: z.array(z.number().finite()).max(KEYPOINTS_2D_LIMITS.maxFrames).optional(),
    frames: z.array(z.array(keypointValue).nullable()).min(1).max(KEYPOINTS_2D_LIMITS.maxFrames),
    otherPeople: z
      .array(z.array(z.array(keypointValue).nullable()))
      .max(KEYPOINTS_2D_LIMITS.maxPeople)
      .optional(),
    /** What made the keypoints (informative; a phone says its model, its inference backend and the rate it kept up). */
    producer: z
      .object({
        model: z.string().max(100).optional(),
        backend: z.string().max(100).optional(),
        /** Processed frames per second it achieved. */
        achievedHz: z.number().nonnegative().max(1000).optional(),
      })
      .optional(),
  })
  .superRefine((file, context) => {
    const values = file.keypointNames.length * 3;
    const checkFrames = (frames: readonly ((number | null)[] | null)[], path: (string | number)[]) =>
      frames.forEach((frame, index) => {
        if (frame !== null && frame.length !== values)
          context.addIssue({
            code: 'custom',
            path: [...path, index],
            message: keypoints2dMessages.frameLength(values),
          });
      });
    checkFrames(file.frames, ['frames']);
    file.otherPeople?.forEach((layer, person) => {
      if (layer.length !== file.frames.length)
        context.addIssue({
          code: 'custom',
          path: ['otherPeople', person],
          message: `Each layer of otherPeople must have one entry per frame (${file.frames.length}).`,
        });
      checkFrames(layer, ['otherPeople', person]);
    });
    const times = file.timestampsS;
    if (times && (times.length !== file.frames.length || times.some((t, i) => i > 0 && !(t > times[i - 1]))))
      context.addIssue({ code: 'custom', path: ['timestampsS'], message: keypoints2dMessages.timestamps });
    const confidenceOutOfRange = file.frames.findIndex(
      (frame) => frame?.some((value, i) => i % 3 === 2 && value !== null && (value < 0 || value > 1)) ?? false,
    );
    if (confidenceOutOfRange >= 0)
      context.addIssue({
        code: 'custom',
        path: ['frames', confidenceOutOfRange],
        message: keypoints2dMessages.confidence,
      });
  });
export type KinetraceKeypoints2d = z.infer<typeof kinetraceKeypoints2dSchema>;

export const phoneKeypointsMessages = {
  notJson: 'The keypoints are not valid JSON: send one Kinetrace keypoints 2D file.',
  timestamps:
    "A phone's keypoints need timestampsS: each processed frame's time in seconds from the video's first frame.",
} as const;

/**
 * The 2D keypoints a phone uploads beside its video (issue 24; the upload's contract is PHONE_KEYPOINTS_UPLOAD in
 * capture.ts): a Kinetrace keypoints file whose `timestampsS` are required, since the phone processes the frames it
 * can keep up with, not every frame; the server places them on its video's frame times.
 */
export const phoneKeypoints2dSchema = kinetraceKeypoints2dSchema.refine((file) => file.timestampsS !== undefined, {
  path: ['timestampsS'],
  message: phoneKeypointsMessages.timestamps,
});
