import {
  DEFAULT_FRAMERATE,
  FOLLOW_UP_STAGES,
  followUpSchema,
  RESULT_TAGS,
  autoplayDelayMs,
  messages,
  trialKindOf,
  type Session,
  type Trial,
} from '@kinetrace/contracts';
import { readTrc } from '@kinetrace/mocap/formats/trc';
import { Alert, Checkbox, Grid, Group, Loader, Paper, Stack, Text } from '@mantine/core';
import { useQueries, useQuery } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'react';
import { resultFileQuery, resultUrl } from '../../../api/trial-results.ts';
import { latestCalibrationOf } from '../../../components/calibration-quality.ts';
import { NeutralImages } from '../../Neutral/NeutralImages.tsx';
import { parseTrialMotion } from './body-motion.ts';
import { cameraPosesOf, type CameraPose } from './camera-poses.ts';
import { PlaybackClock, usePlayback, usePlaybackLoop } from './playback-clock.ts';
import { PlaybackControls } from './PlaybackControls.tsx';
import { SkeletonScene } from './SkeletonScene.tsx';
import { SyncedVideos, type TrialVideo } from './SyncedVideos.tsx';

/** The 3D scene's height, and the videos' beside it; its smallest width. */
const VIEWER_HEIGHT_PX = 520;
const SCENE_MIN_WIDTH_PX = 420;
/** Narrower than this, the videos go below the scene. */
const VIDEOS_MIN_WIDTH_PX = 300;

const allCameras = (results: { data?: CameraPose[] }[]) => results.flatMap((result) => result.data ?? []);

/**
 * Synchronised videos when processing made them, else the uploaded ones (then not in step with the scene), each
 * labelled with its camera's name (an imported video's, or its calibrated camera's) before the phone's id.
 */
function videosOf(trial: Trial): { videos: TrialVideo[]; synchronised: boolean } {
  const synced = trial.results.filter((result) => result.tag === RESULT_TAGS.videoSync && result.media);
  if (synced.length > 0) {
    return {
      synchronised: true,
      videos: synced.map((result, i) => ({
        label: String(result.meta?.camera_name ?? result.meta?.device_id ?? `Camera ${i + 1}`),
        url: result.media!,
      })),
    };
  }
  return {
    synchronised: false,
    videos: trial.videos.flatMap((video) =>
      video.video ? [{ label: String(video.parameters.camera_name ?? video.device_id), url: video.video }] : [],
    ),
  };
}

/**
 * Above the videos when they are not the synchronised ones: that the uploaded videos are shown (spec §4.3),
 * and, when the synchronised videos are still being made after the trial was done (issue 24), their stage and
 * percentage, or why they could not be made.
 */
function VideosNotice({ trial, mb }: { trial: Trial; mb?: string }) {
  const followUp = followUpSchema.safeParse(trial.meta.follow_up);
  return (
    <Alert
      color={followUp.success && followUp.data.status === 'failed' ? 'orange' : 'blue'}
      mb={mb}
      data-testid="videos-notice"
    >
      <Text size="sm">{messages.videosNotSynchronized}</Text>
      {followUp.success && (
        <Text size="sm" data-testid="follow-up" data-status={followUp.data.status}>
          {followUp.data.status === 'running'
            ? `${FOLLOW_UP_STAGES[followUp.data.stage]} ${Math.round(followUp.data.percent)}%`
            : followUp.data.error_msg}
        </Text>
      )}
    </Alert>
  );
}

function TimeReadout({ clock, frameCount }: { clock: PlaybackClock; frameCount: number }) {
  const { timeS, atMs } = usePlayback(clock);
  return (
    <Text size="xs" c="dimmed" data-testid="viewer-time" data-time={timeS.toFixed(4)} data-time-at-ms={atMs.toFixed(1)}>
      {frameCount} frames, {(1 / clock.frameS).toFixed(0)} Hz
    </Text>
  );
}

export interface TrialViewerProps {
  session: Session;
  trial: Trial;
  /** Only these frames of the motion, looped (the analysis dashboard shows the analysed window). */
  frames?: { start: number; end: number };
  /** Autoplay delay instead of the session screen's (spec §9: 1 s in the dashboard visualizer). */
  autoplayMs?: number;
  /** Receives the viewer's clock once the motion is loaded, for a chart to follow it (see useChartTimeLink). */
  onClock?: (clock: PlaybackClock | undefined) => void;
}

/**
 * A processed trial (spec §2.13, §4.3): the 3D scene of its visualizerTransforms-json beside its
 * videos, all on one clock that starts playing after the autoplay delay (spec §9). Read-only: it
 * has no owner controls, so owners and visitors of a public session see the same.
 */
export function TrialViewer({ session, trial, frames, autoplayMs, onClock }: TrialViewerProps) {
  const transformsUrl = resultUrl(trial, RESULT_TAGS.visualizerTransforms);
  const motion = useQuery(resultFileQuery(transformsUrl, async (response) => parseTrialMotion(await response.json())));
  const [showKeypoints, setShowKeypoints] = useState(false);
  const markersUrl = resultUrl(trial, RESULT_TAGS.markerData);
  const keypoints = useQuery({
    ...resultFileQuery(markersUrl, async (response) => readTrc(await response.text())),
    enabled: showKeypoints && Boolean(markersUrl),
  });
  const cameras = useQueries({
    queries: (latestCalibrationOf(session)?.results ?? [])
      .filter((result) => result.tag === RESULT_TAGS.cameraParameters)
      .map((result) => resultFileQuery(result.media, async (response) => cameraPosesOf(await response.json()))),
    combine: allCameras,
  });
  const { videos, synchronised } = videosOf(trial);

  const [firstFrame, lastFrame] = [frames?.start ?? 0, frames?.end ?? Number.POSITIVE_INFINITY];
  const clock = useMemo(() => {
    const data = motion.data;
    if (!data) return undefined;
    const last = data.timesS.length - 1;
    const start = Math.min(firstFrame, last);
    return new PlaybackClock(
      data.timesS[start],
      data.timesS[Math.max(start, Math.min(lastFrame, last))],
      1 / data.frameRateHz,
    );
  }, [motion.data, firstFrame, lastFrame]);
  useEffect(() => {
    onClock?.(clock);
    return () => onClock?.(undefined);
  }, [clock, onClock]);

  if (!transformsUrl || motion.isError) {
    // A neutral is processed into a scaled model, never a motion: its images stand where the 3D view would.
    const neutral = !transformsUrl && trialKindOf(trial.name) === 'neutral';
    return (
      <Stack>
        {neutral ? (
          <>
            <Text size="sm">{messages.neutralHasNoMotion}</Text>
            <NeutralImages
              images={trial.results.flatMap((result) =>
                result.tag === RESULT_TAGS.neutralImage && result.media ? [result.media] : [],
              )}
            />
          </>
        ) : (
          <Alert color="orange">
            {transformsUrl ? motion.error?.message : messages.resultNotFound(RESULT_TAGS.visualizerTransforms)}
          </Alert>
        )}
        {!synchronised && videos.length > 0 && <VideosNotice trial={trial} />}
        <Grid>
          {videos.map((video) => (
            <Grid.Col key={video.url} span={{ base: 12, sm: 6 }}>
              <video
                src={video.url}
                controls
                muted
                playsInline
                aria-label={`Video ${video.label}`}
                style={{ width: '100%' }}
              />
            </Grid.Col>
          ))}
        </Grid>
      </Stack>
    );
  }
  if (!clock || !motion.data) return <Loader aria-label="Loading the 3D result" />;

  const videoFrameS = 1 / (session.meta.settings?.framerate ?? DEFAULT_FRAMERATE);
  return (
    <Paper withBorder radius="md" p="sm" data-testid="trial-viewer" aria-label={`Trial ${trial.name}`}>
      <PlaybackLoop clock={clock} delayMs={autoplayMs} />
      {!synchronised && videos.length > 0 && <VideosNotice trial={trial} mb="xs" />}
      {/* One row (wrapping on narrow screens) of one height: the videos fill the scene's height, so no blank is left beside either. */}
      <div style={{ display: 'flex', flexWrap: 'wrap', gap: 'var(--mantine-spacing-sm)' }}>
        <div style={{ flex: `7 1 ${SCENE_MIN_WIDTH_PX}px`, minWidth: 0, height: VIEWER_HEIGHT_PX }}>
          <SkeletonScene
            motion={motion.data}
            clock={clock}
            cameras={cameras}
            keypoints={showKeypoints ? keypoints.data : undefined}
          />
        </div>
        {videos.length > 0 && (
          <div
            style={{ flex: `5 1 ${VIDEOS_MIN_WIDTH_PX}px`, minWidth: 0, height: VIEWER_HEIGHT_PX }}
            data-testid="trial-videos"
          >
            <SyncedVideos videos={videos} clock={clock} toleranceS={videoFrameS} />
          </div>
        )}
      </div>
      <Stack gap={4} mt="xs">
        <PlaybackControls clock={clock} />
        <Group justify="space-between">
          <TimeReadout clock={clock} frameCount={motion.data.timesS.length} />
          {markersUrl && (
            <Checkbox
              size="xs"
              label="Show 3D keypoints"
              checked={showKeypoints}
              onChange={(event) => setShowKeypoints(event.currentTarget.checked)}
            />
          )}
        </Group>
      </Stack>
    </Paper>
  );
}

/** Runs the clock and starts it after the autoplay delay: 2 s, or 10000/downlink ms where the browser knows the downlink, unless `delayMs` is given (spec §9). */
function PlaybackLoop({ clock, delayMs }: { clock: PlaybackClock; delayMs: number | undefined }) {
  usePlaybackLoop(clock);
  useEffect(() => {
    const downlink = (navigator as Navigator & { connection?: { downlink?: number } }).connection?.downlink;
    // Unless the person has already played, paused or moved the time themselves.
    const untouched = clock.snapshot;
    const timer = setTimeout(() => clock.snapshot === untouched && clock.play(), delayMs ?? autoplayDelayMs(downlink));
    return () => clearTimeout(timer);
  }, [clock, delayMs]);
  return null;
}
