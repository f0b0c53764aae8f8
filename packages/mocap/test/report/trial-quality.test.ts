import { trialQualitySchema } from '@kinetrace/contracts';
import { describe, expect, it } from 'vitest';
import { CHECKED_SEGMENTS, segmentLengths } from '../../src/report/segment-lengths.ts';
import { type CameraEvidence, judgeTrialQuality } from '../../src/report/trial-quality.ts';

/**
 * The quality gate on synthetic keypoints with known faults: a body whose segments keep their
 * lengths (1 cm of noise) is good; one whose legs and arms stretch by 15-25 cm in frames 40-69 is
 * poor, and the reason names that stretch and the camera whose keypoints disagree with the others;
 * a camera whose tracker followed another person, its frames given the subject's own detection, is
 * not to blame.
 */
const names = [...new Set(CHECKED_SEGMENTS.flatMap((segment) => [segment.from, segment.to]))];
const frames = 100;
const fps = 60;

function body(broken: (frame: number) => boolean): Float64Array {
  const positions = new Float64Array(frames * names.length * 3);
  for (let f = 0; f < frames; f++)
    names.forEach((name, k) => {
      // Each keypoint on its own spot along a line; broken frames spread them apart.
      const spread = broken(f) ? 1.5 : 1;
      const noise = 0.01 * Math.sin(7 * f + 3 * k);
      positions.set([0.3 * k * spread + noise, 1, 0], (f * names.length + k) * 3);
    });
  return positions;
}

const camera = (name: string, overrides: Partial<CameraEvidence> = {}): CameraEvidence => ({
  name,
  framesTotal: frames,
  framesWithoutPerson: 0,
  detectionsLeftOut: 0,
  reprojectionMedianPx: 6,
  ...overrides,
});

const judge = (positionsM: Float64Array, cameras: CameraEvidence[]) =>
  judgeTrialQuality({
    segments: segmentLengths(positionsM, names, frames),
    segmentDefinitions: CHECKED_SEGMENTS,
    positionsM,
    keypointNames: names,
    timesS: Float64Array.from({ length: frames }, (_, f) => f / fps),
    cameras,
  });

describe('the quality gate of a trial', () => {
  it('rates body-like keypoints good, with the figure it was decided on', () => {
    const quality = judge(
      body(() => false),
      [camera('cam01'), camera('cam02')],
    );
    expect(trialQualitySchema.parse(quality)).toEqual(quality);
    expect(quality.rating).toBe('good');
    expect(quality.medianSegmentSdMm).toBeLessThan(30);
    expect(quality.reasons).toEqual([]);
  });

  it('rates keypoints that come apart poor, naming the stretch and the camera whose keypoints disagree', () => {
    const quality = judge(
      body((f) => f >= 40 && f < 70),
      [camera('cam01'), camera('cam02', { detectionsLeftOut: 0.3 * frames * names.length })],
    );
    expect(trialQualitySchema.parse(quality)).toEqual(quality);
    expect(quality.rating).toBe('poor');
    const [reason] = quality.reasons;
    expect(reason.code).toBe('SEGMENTS_NOT_BODY_LIKE');
    expect(reason.cameras).toEqual(['cam02']);
    expect(reason.cameraFindings[0].finding).toBe(
      'disagreed with the other cameras on 30 % of its keypoints, which were left out',
    );
    expect(reason.stretches).toEqual([{ firstFrame: 40, lastFrame: 69, startS: 40 / fps, endS: 69 / fps }]);
    expect(reason.message).toMatch(/not body-like.*Worst at 0\.67–1\.15 s\. To blame: cam02/);
  });

  it('says when no camera stands out, and does not blame a camera given the subject in place of the person it tracked', () => {
    // As three cameras of the multi-person demo: their trackers followed another person in most
    // frames, and the subject was taken from their other detections there.
    const tracked = { ...camera('cam01'), framesPersonReassigned: 60 };
    const quality = judge(
      body((f) => f >= 40 && f < 70),
      [tracked, camera('cam02')],
    );
    expect(quality.reasons[0].cameras).toEqual([]);
    expect(quality.reasons[0].message).toMatch(/No camera stands out/);
  });
});
