import { z } from 'zod';
import { keypoints2dSourceSchema } from './keypoints-2d.ts';
import { trialQualitySchema } from './trial-quality.ts';

/**
 * What the trial page reads of a processed trial's `main_settings` and `quality_report` files (issue 21): the
 * engine writes them (MainSettings in packages/mocap/src/session/main-settings.ts, ReportWithModelFit in
 * packages/mocap/src/session/model-fit-report.ts, documented in packages/mocap/docs/process.md); these schemas
 * name the fields shown, and a file missing one of them is not shown rather than shown wrong.
 */

/** A model or augmenter: what the session asked for, what was used, and why. */
const modelChoiceSchema = z.object({ requested: z.string().nullable(), used: z.string(), reason: z.string() });

export const mainSettingsSchema = z.object({
  kind: z.enum(['neutral', 'movement']),
  /** `requested` is the session's pose_model (hrnet, openpose); `used` the engine's model (blazepose-full, ...). */
  poseModel: z.object({ requested: z.string().nullable(), used: z.string() }),
  openSimModel: modelChoiceSchema,
  augmenter: modelChoiceSchema,
  filter: z.object({
    requested: z.union([z.literal('default'), z.number()]),
    cutoffHz: z.number(),
    applied: z.boolean(),
    gait: z.boolean(),
  }),
  scalingSetup: z.string(),
  subject: z.object({ heightM: z.number(), massKg: z.number() }),
  cameras: z.array(z.string()),
  /** Per camera: whether its 2D keypoints were detected by the server or given with the video (issue 24). */
  keypoints2D: z.record(z.string(), keypoints2dSourceSchema).optional(),
  /** Per camera whose phone sent its keypoints: whether they were used, and why not (issue 24). */
  phoneKeypoints: z.record(z.string(), z.object({ used: z.boolean(), reason: z.string().optional() })).optional(),
  /** Per camera whose keypoints the server detected: the frames a second its pose model ran on (issue 24). */
  detectedHz: z.record(z.string(), z.number()).optional(),
  /** The cameras whose keypoints the server detected as their videos arrived, before the trial's last (issue 24). */
  detectedOnArrival: z.array(z.string()).optional(),
  referenceCamera: z.string(),
  frameRateHz: z.number(),
});
export type MainSettingsView = z.infer<typeof mainSettingsSchema>;

const errorStatisticsSchema = z.object({
  medianPx: z.number(),
  meanPx: z.number(),
  p95Px: z.number(),
  count: z.number(),
});

export const qualityReportSchema = z.object({
  frameRateHz: z.number(),
  frameCount: z.number(),
  /**
   * Other people in view: how many people the cameras saw together (the subject among them; 0 when no camera
   * saw anyone else), and the stretches where the subject could not be told apart from them (frames without
   * the subject's keypoints; those up to a fifth of a second are filled). Absent from reports written before.
   */
  people: z
    .object({
      found: z.number(),
      subjectNotToldApart: z.array(z.object({ startS: z.number(), endS: z.number(), frames: z.number() })),
    })
    .optional(),
  reprojectionErrorPx: errorStatisticsSchema.nullable(),
  cameras: z.array(
    z.object({
      name: z.string(),
      /** Board reprojection error of the camera's calibration, px; null when the calibration did not give one (imported). */
      calibrationErrorPx: z.number().nullable(),
      sync: z.object({
        lagS: z.number(),
        lagFrames: z.number(),
        confidence: z.number(),
        signal: z.string(),
        isReference: z.boolean(),
        refined: z.boolean(),
      }),
      /** Its 2D keypoints left out of triangulation because they disagreed with the other cameras. */
      detectionsLeftOut: z.number(),
      sidesSwapped: z.number(),
      framesWithoutPerson: z.number(),
      framesTotal: z.number(),
      /** Whether the camera's 2D keypoints were detected by the server or given with the video. */
      keypoints2D: keypoints2dSourceSchema.optional(),
      /**
       * When the camera's phone sent its keypoints (issue 24): whether they were used; their rate over the video
       * against what the filter needs (twice its cutoff) and their longest hole; the median distance from the
       * server's own detection of a sample of frames against its tolerance; why they were not used.
       */
      phoneKeypoints: z
        .object({
          used: z.boolean(),
          achievedHz: z.number(),
          neededHz: z.number(),
          longestHoleS: z.number(),
          medianDistancePx: z.number().optional(),
          tolerancePx: z.number().optional(),
          reason: z.string().optional(),
        })
        .optional(),
      /**
       * When the server detected the camera's keypoints: the frames a second its pose model ran on (the video's
       * rate, or what the trial's filter needs, the frames between filled; issue 24). Absent from reports written before.
       */
      detectedHz: z.number().optional(),
      /** The server detected them as the camera's video arrived, before the trial's last video (issue 24). */
      detectedOnArrival: z.boolean().optional(),
      /** `count` is the number of its 2D keypoints that went into the 3D points (keypoints contributed). */
      reprojectionErrorPx: errorStatisticsSchema.nullable(),
    }),
  ),
  segments: z.array(z.object({ name: z.string(), sdM: z.number(), meanM: z.number() })),
  warnings: z.array(z.string()),
  quality: trialQualitySchema,
  modelFit: z
    .object({
      /** The neutral's static-pose IK, before the markers were placed. */
      scaling: z
        .object({ markerErrorRmsMm: z.number().nullable(), markerErrorMaxMm: z.number().nullable() })
        .optional(),
      /** A movement trial's IK. */
      inverseKinematics: z
        .object({
          markerErrorRmsMm: z.number(),
          markerErrorMaxMm: z.number(),
          markerErrorRmsPerMarkerMm: z.record(z.string(), z.number()),
        })
        .optional(),
    })
    .optional(),
});
export type QualityReportView = z.infer<typeof qualityReportSchema>;
