import { RESULT_TAGS, type Session, type Trial } from '@kinetrace/contracts';
import { useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { calibrationLight, type Light } from './quality-lights.ts';

/** The session's newest processed calibration: its camera-parameters results are the session's cameras. */
export function latestCalibrationOf(session: Session): Trial | undefined {
  return session.trials
    .filter((trial) => trial.name === 'calibration' && trial.status === 'done' && !trial.trashed)
    .sort((a, b) => a.created_at.localeCompare(b.created_at))
    .at(-1);
}

/** One camera of a calibration as the calibration step shows it. */
export interface CameraCalibration {
  camera: string;
  /** The board as the camera saw it, with the corners found (calibration-img); null for an imported calibration. */
  imageUrl: string | null;
  /** RMS reprojection error of the board's corners, px; null when the calibration did not measure one (imported). */
  boardErrorPx: number | null;
  light: Light | null;
}

/** What the calibration step reads of a Kinetrace camera file: the board errors processing wrote, best pose first. */
const boardErrorsSchema = z.object({
  calibration: z.object({ boardRmsPx: z.array(z.number()).optional() }).optional(),
});

const cameraOf = (result: Trial['results'][number]) =>
  String(result.meta?.camera_name ?? result.meta?.device_id ?? result.tag);

async function boardErrorOf(url: string): Promise<number | null> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`The camera file could not be loaded (${response.status}).`);
  return boardErrorsSchema.parse(await response.json()).calibration?.boardRmsPx?.[0] ?? null;
}

/** Each camera of a processed calibration with its image and board error (read from its camera-parameters file). */
export async function fetchCalibrationQuality(trial: Trial): Promise<CameraCalibration[]> {
  const images = trial.results.filter((result) => result.tag === RESULT_TAGS.calibrationImage && result.media);
  const cameras = trial.results.filter((result) => result.tag === RESULT_TAGS.cameraParameters && result.media);
  return Promise.all(
    cameras.map(async (result) => {
      const camera = cameraOf(result);
      const boardErrorPx = await boardErrorOf(result.media!);
      return {
        camera,
        imageUrl: images.find((image) => cameraOf(image) === camera)?.media ?? null,
        boardErrorPx,
        light: calibrationLight(boardErrorPx),
      };
    }),
  );
}

/** The query of a calibration's cameras: one per set of result files (reprocessing makes new ones). */
const calibrationQualityQuery = (trial: Trial | undefined) => ({
  queryKey: ['calibration-quality', trial?.id, trial?.results.map((result) => result.id ?? result.tag).join()],
  queryFn: () => fetchCalibrationQuality(trial!),
  enabled: trial !== undefined,
  staleTime: Number.POSITIVE_INFINITY,
});

export const useCalibrationQuality = (trial: Trial | undefined) => useQuery(calibrationQualityQuery(trial));

/** The cameras whose calibration is poor (red), to warn about before recording. */
export const poorCameras = (cameras: readonly CameraCalibration[] | undefined) =>
  (cameras ?? []).filter((camera) => camera.light === 'red');
