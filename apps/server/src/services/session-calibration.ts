import { RESULT_TAGS } from '@kinetrace/contracts';
import type { TrialResultRow, TrialRow, TrialsRepository } from '../repositories/trials-repository.ts';

/** A calibrated camera of the session: the phone (or, for an imported calibration, the camera name) and its name. */
export interface CalibratedCameraRef {
  deviceId: string;
  cameraName: string;
  result: TrialResultRow;
}

/** The session's calibration: its newest calibration trial that is done and not in the recycle bin. */
export async function latestCalibration(trials: TrialsRepository, sessionId: string): Promise<TrialRow | undefined> {
  return (await trials.ofSession(sessionId))
    .filter((trial) => trial.name === 'calibration' && !trial.trashed && trial.status === 'done')
    .at(-1);
}

/** The calibrated cameras, one per camera-parameters result of the session's calibration, in the order they were stored. */
export async function calibratedCamerasOf(trials: TrialsRepository, sessionId: string): Promise<CalibratedCameraRef[]> {
  const calibration = await latestCalibration(trials, sessionId);
  if (!calibration) return [];
  const cameras = new Map<string, CalibratedCameraRef>();
  for (const result of await trials.resultsOf(calibration.id)) {
    if (result.tag !== RESULT_TAGS.cameraParameters) continue;
    const meta = (result.meta ?? {}) as { device_id?: unknown; camera_name?: unknown };
    const deviceId = typeof meta.device_id === 'string' ? meta.device_id : String(result.id);
    const cameraName = typeof meta.camera_name === 'string' ? meta.camera_name : deviceId;
    if (!cameras.has(deviceId)) cameras.set(deviceId, { deviceId, cameraName, result });
  }
  return [...cameras.values()];
}
