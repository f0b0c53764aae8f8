import type { CameraModel } from '../camera/camera.ts';
import { alignToTimeBase, sharedTimeBase, type AlignedKeypoints } from '../sync/align-to-time-base.ts';
import type { KeypointSeries } from '../sync/keypoint-series.ts';
import { PointSolver } from '../triangulation/point-solver.ts';
import { associationObservations, associationPoints } from './association-points.ts';
import { calibratedVolumeCentre, chooseSubjectTrack } from './choose-subject.ts';
import { FramePeopleFinder, type FramePerson } from './people-in-frame.ts';
import { trackPeople } from './track-people.ts';

/**
 * The subject, when other people are in view. The pose stage keeps each camera's other people
 * (Keypoints2D.otherPeople), and a camera's tracker may follow anyone of them. Here, on the cameras'
 * start times (synchronisation needs the person chosen first; a few frames of lag cost a few
 * pixels, another person hundreds):
 *
 * 1. in each frame, the detections that are one body across cameras are grouped into people
 *    (FramePeopleFinder);
 * 2. the people are followed over time in 3D (trackPeople), so people crossing in one camera's
 *    image stay apart;
 * 3. the subject is the person standing still in the neutral trial, the one nearest the
 *    calibrated volume's centre otherwise (chooseSubjectTrack);
 * 4. each camera keeps the subject's detection in each frame, and nothing where the subject was not
 *    told apart in it: a gap, never another person's keypoints (subjectSeries).
 */
export interface PersonAssociation {
  /** The series with the subject in `data` (missing where not told apart), and no `otherPeople`. */
  series: KeypointSeries[];
  /** Per camera: frames where other people were seen. */
  framesWithOthers: number[];
  /** Per camera: frames where the subject was another detection than the tracked one. */
  framesReassigned: number[];
  /** People followed across cameras over the trial, the subject among them (0 when nobody else was seen). */
  peopleFound: number;
  /** Stretches of the trial (seconds from its start) where someone was in view but the subject could not be told apart. */
  subjectNotToldApart: { startS: number; endS: number; frames: number }[];
}

/** Views (camera × person held) the solver can hold. */
const MAX_VIEWS = 30;
/**
 * A camera frame just outside the frames compared (the cameras' start times differ) takes the
 * choice of the nearest compared frame within this time: the pose stage follows each person it
 * holds frame to frame, so who is who does not change in a few frames (our choice).
 */
const CARRY_CHOICE_S = 0.25;

export function associatePerson(
  cameras: readonly CameraModel[],
  series: readonly KeypointSeries[],
  initialOffsetsS: readonly number[],
  referenceCamera: number,
  minConfidence: number,
  /** The neutral trial: the subject is the person standing still. */
  neutral = false,
): PersonAssociation {
  const framesWithOthers = series.map((s) => countFramesWithPeople(s, minConfidence));
  const unchanged = series.map((s) => ({ ...s, otherPeople: undefined }));
  if (framesWithOthers.every((count) => count === 0))
    return {
      series: unchanged,
      framesWithOthers,
      framesReassigned: series.map(() => 0),
      peopleFound: 0,
      subjectNotToldApart: [],
    };

  // Views: each camera's tracked person, then the others it saw, as many as the solver holds.
  const layersPerCamera = Math.max(1, Math.floor(MAX_VIEWS / cameras.length));
  const views = series.flatMap((s, c) =>
    [s.data, ...(s.otherPeople ?? [])]
      .slice(0, layersPerCamera)
      .map((data, layer) => ({ camera: c, layer, series: { ...s, data, otherPeople: undefined } })),
  );
  const timesS = sharedTimeBase(series, initialOffsetsS, referenceCamera);
  const frameRateHz = series[referenceCamera].fps;
  const aligned = alignToTimeBase(
    views.map((view) => view.series),
    views.map((view) => initialOffsetsS[view.camera]),
    timesS,
    frameRateHz,
  );

  const people = peopleInFrames(cameras, views, aligned, series[0].keypointNames, minConfidence);
  const tracks = trackPeople(people, frameRateHz);
  const subject = chooseSubjectTrack(tracks, people, {
    volumeCentreM: calibratedVolumeCentre(cameras),
    standingStill: neutral,
  });
  // The subject's view in each camera and frame of the time base (-1: none).
  const chosen = series.map(() => new Int16Array(aligned.frameCount).fill(-1));
  if (subject >= 0)
    tracks[subject].personAt.forEach((person, frame) => {
      if (person >= 0) for (const view of people[frame][person].views) chosen[views[view].camera][frame] = view;
    });
  chosen.forEach(dropLoneChoices);
  // The subject is told apart in a frame where two cameras or more still hold them.
  const subjectSeen = Uint8Array.from({ length: aligned.frameCount }, (_, frame) =>
    chosen.filter((camera) => camera[frame] >= 0).length >= 2 ? 1 : 0,
  );

  const framesReassigned = series.map(() => 0);
  const result = series.map((s, c) =>
    subjectSeries(s, (own) => {
      const frame = nearestFrame(timesS, s.timestampsS[own] + initialOffsetsS[c]);
      const view = frame < 0 ? -1 : chosen[c][frame];
      if (view < 0) return -1;
      if (views[view].layer > 0) framesReassigned[c]++;
      return views[view].layer;
    }),
  );
  return {
    series: result,
    framesWithOthers,
    framesReassigned,
    peopleFound: tracks.filter((track) => track.framesSeen > 0).length,
    subjectNotToldApart: stretchesWithoutSubject(
      aligned,
      views.map((view) => view.camera),
      subjectSeen,
      minConfidence,
    ),
  };

  /** The time base's frame nearest to a camera frame at `timeS` on the shared clock, within CARRY_CHOICE_S; -1 when none. */
  function nearestFrame(times: Float64Array, timeS: number): number {
    const frame = Math.min(times.length - 1, Math.max(0, Math.round((timeS - times[0]) * frameRateHz)));
    return Math.abs(times[frame] - timeS) <= Math.max(CARRY_CHOICE_S, 0.5 / frameRateHz) ? frame : -1;
  }
}

/** Step 1 for every frame of the time base: the people the views show, grouped across cameras. */
function peopleInFrames(
  cameras: readonly CameraModel[],
  views: readonly { camera: number }[],
  aligned: AlignedKeypoints,
  keypointNames: readonly string[],
  minConfidence: number,
): FramePerson[][] {
  const points = associationPoints(keypointNames);
  const observed = aligned.observations.map((observations) =>
    associationObservations(observations, aligned.frameCount, aligned.keypointCount, points, minConfidence),
  );
  const solver = PointSolver.fromPixels(
    views.map((view) => cameras[view.camera]),
    observed.map((view) => view.observations),
    aligned.frameCount * points.length,
    minConfidence,
  );
  const finder = new FramePeopleFinder({
    solver,
    viewCameras: views.map((view) => view.camera),
    cameraCount: cameras.length,
    sizePx: observed.map((view) => view.sizePx),
    pointCount: points.length,
  });
  return Array.from({ length: aligned.frameCount }, (_, frame) => finder.find(frame));
}

/**
 * Step 4 for one camera: in each of its own frames, the keypoints of the person `layerAt` gives (the
 * subject's detection: 0 the tracked person, 1... the others), or missing (x, y NaN, confidence 0)
 * where it gives none (-1).
 */
function subjectSeries(series: KeypointSeries, layerAt: (ownFrame: number) => number): KeypointSeries {
  const layers = [series.data, ...(series.otherPeople ?? [])];
  const stride = series.keypointNames.length * 3;
  const data = new Float32Array(series.data.length);
  for (let own = 0; own < series.frameCount; own++) {
    const layer = layerAt(own);
    if (layer >= 0) data.set(layers[layer].subarray(own * stride, (own + 1) * stride), own * stride);
    else for (let i = own * stride; i < (own + 1) * stride; i += 3) data.set([Number.NaN, Number.NaN, 0], i);
  }
  return { ...series, data, otherPeople: undefined };
}

/**
 * A camera's detection taken for the subject in a frame, with none taken in that camera within
 * LONE_CHOICE_FRAMES either side, is dropped: the pose stage follows each person frame to frame, so
 * the subject's detection comes in runs, while a lone one is where another person's detection agreed
 * with the subject's other views by chance. On the multi-person demo, once the man has crossed in
 * front of the woman in cam03 and its tracker holds her, her detection there lies along the same
 * lines of sight as the man: one frame of it (frame 90) agreed with his other three views, and one
 * (frame 97) with his view in cam04 alone. Triangulation's spike removal drops such a lone point
 * anyway (remove-spikes.ts, the same ±2 frames); here the other person's keypoints never enter.
 */
function dropLoneChoices(chosen: Int16Array): void {
  const lone = Array.from(chosen.keys()).filter((frame) => {
    if (chosen[frame] < 0) return false;
    for (let other = frame - LONE_CHOICE_FRAMES; other <= frame + LONE_CHOICE_FRAMES; other++)
      if (other !== frame && other >= 0 && other < chosen.length && chosen[other] >= 0) return false;
    return true;
  });
  for (const frame of lone) chosen[frame] = -1;
}

/** As remove-spikes.ts's half window: a detection with no other of the subject within this many frames either side is alone. */
const LONE_CHOICE_FRAMES = 2;

/**
 * Runs of frames of the time base where two cameras or more saw someone but the subject was not
 * found among them (held by fewer than two cameras), in seconds from the first frame.
 */
function stretchesWithoutSubject(
  aligned: AlignedKeypoints,
  viewCameras: readonly number[],
  subjectSeen: Uint8Array,
  minConfidence: number,
): PersonAssociation['subjectNotToldApart'] {
  const stride = aligned.keypointCount * 3;
  const stretches: PersonAssociation['subjectNotToldApart'] = [];
  let start = -1;
  for (let frame = 0; frame <= aligned.frameCount; frame++) {
    let missing = false;
    if (frame < aligned.frameCount && !subjectSeen[frame]) {
      const seeing = new Set<number>();
      aligned.observations.forEach((observations, view) => {
        for (let i = frame * stride + 2; i < (frame + 1) * stride; i += 3)
          if (observations[i] >= minConfidence) return seeing.add(viewCameras[view]);
      });
      missing = seeing.size >= 2;
    }
    if (missing && start < 0) start = frame;
    if (!missing && start >= 0) {
      const t0 = aligned.timesS[0];
      stretches.push({
        startS: aligned.timesS[start] - t0,
        endS: aligned.timesS[frame - 1] - t0,
        frames: frame - start,
      });
      start = -1;
    }
  }
  return stretches;
}

function countFramesWithPeople(series: KeypointSeries, minConfidence: number): number {
  const layers = series.otherPeople ?? [];
  const stride = series.keypointNames.length * 3;
  let frames = 0;
  for (let frame = 0; frame < series.frameCount; frame++) {
    const seen = layers.some((layer) => {
      for (let i = frame * stride + 2; i < (frame + 1) * stride; i += 3) if (layer[i] >= minConfidence) return true;
      return false;
    });
    if (seen) frames++;
  }
  return frames;
}
