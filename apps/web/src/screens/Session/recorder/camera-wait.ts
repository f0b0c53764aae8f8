import { CAMERA_CONNECTION_WAIT_MS, POLLING_INTERVAL_MS } from '@kinetrace/contracts';
import { fetchRecordingStatus } from '../../../api/capture.ts';

/**
 * §4.3: before a trial records, wait up to 5 s, asking every 0.5 s, until as many cameras are connected as
 * were calibrated. Resolves to whether they all came.
 */
export async function waitForCalibratedCameras(sessionId: string, calibratedCameras: number): Promise<boolean> {
  const deadline = Date.now() + CAMERA_CONNECTION_WAIT_MS;
  for (;;) {
    const { n_cameras_connected } = await fetchRecordingStatus(sessionId);
    if (n_cameras_connected === calibratedCameras) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, POLLING_INTERVAL_MS.cameraConnection));
  }
}
