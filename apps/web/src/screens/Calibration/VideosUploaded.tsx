import type { RecordingStatus } from '@kinetrace/contracts';
import { Text } from '@mantine/core';

/** 'N of M videos uploaded' (§2.10, §2.11): M is the cameras the trial waits for, else those connected. */
export function VideosUploaded({ status }: { status: RecordingStatus | undefined }) {
  if (!status) return null;
  const expected = status.n_videos_expected > 0 ? status.n_videos_expected : status.n_cameras_connected;
  return (
    <Text data-testid="videos-uploaded">
      {status.n_videos_uploaded} of {expected} videos uploaded
    </Text>
  );
}
