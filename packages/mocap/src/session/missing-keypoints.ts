import { KeypointsMissingError } from '../pipeline/processing-error.ts';
import type { Keypoints2D } from '../pose/types.ts';
import { DEFAULT_MIN_CONFIDENCE } from '../triangulation/triangulate.ts';

/** A camera that showed a keypoint with confidence in fewer than this share of its frames counts as not seeing it. */
const SEEN_SHARE = 0.5;

/** What to do about a neutral that lacks keypoints: what every camera must see. */
const NEUTRAL_ADVICE =
  'Record the neutral again with the subject standing still for the whole recording, the whole body from head to feet in view of every camera, nothing in front of the feet and nobody else in view.';

/** Per camera that did not see some of `names` (confident in fewer than half its frames), which ones. */
export function camerasNotSeeing(
  names: readonly string[],
  keypoints2D: readonly Keypoints2D[],
  cameraNames: readonly string[],
  minConfidence = DEFAULT_MIN_CONFIDENCE,
): { cameraName: string; missed: string[] }[] {
  return cameraNames
    .map((cameraName, c) => {
      const series = keypoints2D[c];
      const width = series.keypointNames.length;
      const missed = names.filter((name) => {
        const k = (series.keypointNames as readonly string[]).indexOf(name);
        if (k < 0) return false;
        let seen = 0;
        for (let f = 0; f < series.frameCount; f++) if (series.data[(f * width + k) * 3 + 2] >= minConfidence) seen++;
        return seen < SEEN_SHARE * series.frameCount;
      });
      return { cameraName, missed };
    })
    .filter((camera) => camera.missed.length > 0);
}

const camerasText = (blamed: readonly { cameraName: string; missed: string[] }[]) =>
  blamed.map(({ cameraName, missed }) => `Camera ${cameraName} did not see ${missed.join(', ')}`).join('; ');

/**
 * A neutral whose scaling lacked keypoints (KeypointsMissingError from the still window, or an
 * essential segment not measured): the same error with the cameras that did not see those keypoints
 * named, and what to do. A keypoint is triangulated from two cameras or more, so with two phones one
 * camera missing it is enough to lose it.
 */
export function neutralKeypointsMissing(
  error: KeypointsMissingError,
  keypoints2D: readonly Keypoints2D[],
  cameraNames: readonly string[],
  minConfidence = DEFAULT_MIN_CONFIDENCE,
): KeypointsMissingError {
  const blamed = camerasNotSeeing(
    error.keypoints.map((keypoint) => keypoint.name),
    keypoints2D,
    cameraNames,
    minConfidence,
  );
  const cameras = blamed.length === 0 ? '' : ` ${camerasText(blamed)}.`;
  return new KeypointsMissingError(
    `The model cannot be scaled from this neutral pose. ${error.message}${cameras} ${NEUTRAL_ADVICE}`,
    error.keypoints,
    error.frameCount,
    blamed.map((camera) => camera.cameraName),
  );
}

/**
 * The note for a neutral scaled without some of its keypoints (a warning of its report): the
 * keypoints left out, the cameras that did not see them, and what was done instead. Undefined when
 * every keypoint was seen.
 */
export function neutralKeypointsLeftOut(
  notSeen: readonly string[],
  measurementsNotMade: readonly string[],
  keypoints2D: readonly Keypoints2D[],
  cameraNames: readonly string[],
  minConfidence = DEFAULT_MIN_CONFIDENCE,
): string | undefined {
  if (notSeen.length === 0 && measurementsNotMade.length === 0) return undefined;
  const blamed = camerasNotSeeing(notSeen, keypoints2D, cameraNames, minConfidence);
  return (
    `Scaled without ${notSeen.join(', ')}: no two cameras located them at once while the subject stood still (not seen, disagreeing, or seen along nearly one line)` +
    (blamed.length > 0 ? ` (${camerasText(blamed)})` : '') +
    '. Their markers keep the model’s places' +
    (measurementsNotMade.length > 0
      ? `, and the ${measurementsNotMade.join(', ')} keep${measurementsNotMade.length === 1 ? 's' : ''} the model’s proportions at the subject’s height.`
      : '.')
  );
}
