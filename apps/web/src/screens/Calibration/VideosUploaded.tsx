import type { RecordingStatus } from '@kinetrace/contracts';
import { Text } from '@mantine/core';

/**
 * 'N of M videos uploaded' (§2.10, §2.11): M is the cameras the trial waits for, else those connected. Nothing
 * while no phone is connected nor expected (a lab importing its own videos).
 */
export function VideosUploaded({ status }: { status: RecordingStatus | undefined }) {
  if (!status) return null;
  const expected = status.n_videos_expected > 0 ? status.n_videos_expected : status.n_cameras_connected;
  if (expected === 0) return null;
  return (
    <Text data-testid="videos-uploaded">
      {status.n_videos_uploaded} of {expected} videos uploaded
    </Text>
  );
}
