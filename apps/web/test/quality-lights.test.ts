import { qualityReportSchema, type QualityReportView } from '@kinetrace/contracts';
import { describe, expect, it } from 'vitest';
import { calibrationLight, judgeTrialQuality } from '../src/components/quality-lights.ts';
import { walkReport } from './quality-report-fixture.ts';

/** The walking trial's report as the trial page reads it, with `change` applied to a copy. */
function reportWith(change: (report: QualityReportView) => void = () => undefined): QualityReportView {
  const report = qualityReportSchema.parse(structuredClone(walkReport));
  change(report);
  return report;
}

const lightsOf = (report: QualityReportView, kind: 'neutral' | 'movement' = 'movement') =>
  Object.fromEntries(judgeTrialQuality(report, kind).checks.map((check) => [check.title, check.light]));

/** The walking trial made careful: every camera agrees, keeps its sides and the limbs keep their length. */
const careful = (report: QualityReportView) => {
  const cam02 = report.cameras[1];
  cam02.reprojectionErrorPx!.medianPx = 11.2;
  cam02.detectionsLeftOut = 40;
  cam02.sidesSwapped = 2;
  report.quality.medianSegmentSdMm = 12.4;
  report.modelFit!.inverseKinematics = { markerErrorRmsMm: 15.2, markerErrorMaxMm: 31, markerErrorRmsPerMarkerMm: {} };
};

describe('the traffic lights of a processed trial and of a calibration', () => {
  it('calls a board error good up to 1 px, poor above 2 px, and an imported calibration unmeasured', () => {
    expect([0.42, 1, 1.5, 2, 2.01, 3.1].map(calibrationLight)).toEqual([
      'green',
      'green',
      'amber',
      'amber',
      'red',
      'red',
    ]);
    expect(calibrationLight(null)).toBeNull();
  });

  it('reads the engine report and lights each check: a camera far off is red, a usable figure amber', () => {
    const judged = judgeTrialQuality(reportWith(), 'movement');
    expect(judged.overall).toBe('red');
    expect(lightsOf(reportWith())).toEqual({
      'Segment lengths': 'amber',
      'Reprojection error': 'red',
      'Keypoints contributed': 'amber',
      'Left/right swaps fixed': 'amber',
      Synchronisation: 'green',
      'Marker error': 'amber',
    });
  });

  it('is green with no advice for a careful capture', () => {
    const judged = judgeTrialQuality(reportWith(careful), 'movement');
    expect(judged.overall).toBe('green');
    expect(judged.checks.filter((check) => check.advice !== undefined)).toEqual([]);
  });

  it("gives the engine's own reason as the advice of a poor trial", () => {
    const reason = 'The keypoints are not body-like: cam02 followed another person in 40 % of its frames.';
    const judged = judgeTrialQuality(
      reportWith((report) => {
        careful(report);
        report.quality = {
          rating: 'poor',
          medianSegmentSdMm: 64,
          limitMm: 30,
          reasons: [
            { code: 'SEGMENTS_NOT_BODY_LIKE', message: reason, cameras: ['cam02'], cameraFindings: [], stretches: [] },
          ],
        };
      }),
      'movement',
    );
    expect(judged.overall).toBe('red');
    expect(judged.checks.find((check) => check.title === 'Segment lengths')).toMatchObject({
      light: 'red',
      advice: reason,
    });
  });

  it('names a camera that contributed no keypoint, and one whose start time had to stand', () => {
    const judged = judgeTrialQuality(
      reportWith((report) => {
        careful(report);
        report.cameras[1].reprojectionErrorPx = null;
        report.cameras[1].sync = { ...report.cameras[1].sync, refined: false, lagS: 0, lagFrames: 0 };
      }),
      'movement',
    );
    const check = (title: string) => judged.checks.find((candidate) => candidate.title === title);
    expect(check('Keypoints contributed')).toMatchObject({ light: 'red' });
    expect(check('Keypoints contributed')?.advice).toContain('cam02 contributed no keypoint');
    expect(check('Synchronisation')).toMatchObject({ light: 'amber' });
    expect(check('Synchronisation')?.advice).toContain('cam02');
  });

  it('says when other people were in view, and amber with the times where the subject was lost among them', () => {
    expect(lightsOf(reportWith(careful))).not.toHaveProperty('Other people in view');
    const withPeople = (people: QualityReportView['people']) =>
      judgeTrialQuality(
        reportWith((report) => {
          careful(report);
          report.people = people;
        }),
        'movement',
      );
    // A 12-frame moment (a fifth of a second at 60 fps) is filled by the engine.
    const told = withPeople({ found: 3, subjectNotToldApart: [{ startS: 0.5, endS: 0.68, frames: 12 }] });
    expect(told.overall).toBe('green');
    expect(told.checks.find((check) => check.title === 'Other people in view')?.summary).toBe(
      'The cameras saw 2 other people besides the subject; the subject was told apart from them except for moments that were filled.',
    );
    const lost = withPeople({ found: 2, subjectNotToldApart: [{ startS: 1.37, endS: 1.65, frames: 18 }] });
    expect(lost.overall).toBe('amber');
    const check = lost.checks.find((candidate) => candidate.title === 'Other people in view');
    expect(check?.light).toBe('amber');
    expect(check?.summary).toContain('1 other person');
    expect(check?.summary).toContain('1.37–1.65 s (18 frames): those frames have no keypoints');
    expect(check?.advice).toContain('between the cameras and the subject');
  });

  it('judges a neutral without synchronisation, on its static-pose marker error', () => {
    const neutral = reportWith((report) => {
      careful(report);
      report.cameras[1].sync = { ...report.cameras[1].sync, refined: false };
      report.modelFit = { scaling: { markerErrorRmsMm: 46.3, markerErrorMaxMm: 88 } };
    });
    const lights = lightsOf(neutral, 'neutral');
    expect(lights).not.toHaveProperty('Synchronisation');
    expect(lights['Marker error']).toBe('red');
    expect(judgeTrialQuality(neutral, 'neutral').checks.at(-1)?.summary).toBe(
      'Static pose: RMS 46.3 mm, largest 88.0 mm.',
    );
  });
});
