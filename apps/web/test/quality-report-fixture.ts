import type { ReportWithModelFit } from '@kinetrace/mocap/session/model-fit-report';

const stats = (medianPx: number, count: number) => ({ medianPx, meanPx: medianPx * 1.2, p95Px: medianPx * 2.5, count });
const segment = (name: string, sdMm: number, meanM: number) => ({
  name,
  meanM,
  sdM: sdMm / 1000,
  minM: meanM - 0.05,
  maxM: meanM + 0.05,
  frames: 240,
});

/**
 * A walking trial's quality report in the engine's shape (ReportWithModelFit): cam01 sees well; cam02's keypoints
 * reproject 34 px off, an eighth of them were left out and it swapped sides in a quarter of its frames; the
 * segments vary 24 mm (usable, not careful) and the IK's largest marker error is 52 mm.
 */
export const walkReport: ReportWithModelFit = {
  format: 'kinetrace-quality-report',
  version: 1,
  trial: 'walk',
  frameRateHz: 60,
  frameCount: 240,
  durationS: 3.98,
  framesWithoutPerson: 0,
  people: { found: 0, subjectNotToldApart: [] },
  reprojectionErrorPx: stats(14.1, 9503),
  cameras: [
    {
      name: 'cam01',
      calibrationErrorPx: 0.42,
      sync: {
        offsetS: 0,
        lagS: 0,
        lagFrames: 0,
        correlation: 1,
        confidence: 1,
        signal: 'reference',
        isReference: true,
        refined: false,
      },
      detectionsLeftOut: 12,
      sidesSwapped: 0,
      framesWithOtherPeople: 0,
      framesPersonReassigned: 0,
      framesWithoutPerson: 0,
      framesTotal: 240,
      reprojectionErrorPx: stats(8.4, 5112),
    },
    {
      name: 'cam02',
      calibrationErrorPx: 3.1,
      sync: {
        offsetS: 0.083,
        lagS: 0.083,
        lagFrames: 5,
        correlation: 0.91,
        confidence: 0.62,
        signal: 'wristVertical',
        isReference: false,
        refined: true,
      },
      detectionsLeftOut: 640,
      sidesSwapped: 57,
      framesWithOtherPeople: 0,
      framesPersonReassigned: 0,
      framesWithoutPerson: 3,
      framesTotal: 240,
      reprojectionErrorPx: stats(34.2, 4391),
    },
  ],
  keypoints: [],
  segments: [
    segment('RThigh', 21, 0.41),
    segment('LThigh', 19.5, 0.41),
    segment('RShank', 26.2, 0.4),
    segment('LShank', 24.3, 0.4),
    segment('RForearm', 41.7, 0.26),
  ],
  segmentsSteady: false,
  outlierThresholdPx: 28.4,
  pointsRejected: 31,
  filter: { cutoffHz: 12, applied: true },
  warnings: [],
  quality: { rating: 'good', medianSegmentSdMm: 24.3, limitMm: 30, reasons: [] },
  modelFit: {
    inverseKinematics: {
      markerErrorRmsMm: 18.7,
      markerErrorMaxMm: 52.4,
      markerErrorRmsPerMarkerMm: { RKnee: 14.2, LKnee: 15.1, LWrist: 47.9, RWrist: 22.4 },
    },
  },
};
