import { SimpleGrid, Text } from '@mantine/core';
import { useEffect, useRef } from 'react';
import type { PlaybackClock } from './playback-clock.ts';

export interface TrialVideo {
  label: string;
  url: string;
}

/** Keeps one video on the clock: same speed, playing with it, and never more than `toleranceS` away from its time. */
function ClockedVideo({
  video,
  clock,
  toleranceS,
  leads,
}: {
  video: TrialVideo;
  clock: PlaybackClock;
  toleranceS: number;
  leads: boolean;
}) {
  const element = useRef<HTMLVideoElement>(null);
  useEffect(() => {
    const v = element.current;
    if (!v) return;
    const follow = () => {
      const { timeS, playing, speed } = clock.snapshot;
      const target = Number.isFinite(v.duration) ? Math.min(timeS, v.duration) : timeS;
      if (v.playbackRate !== speed) v.playbackRate = speed;
      const past = Number.isFinite(v.duration) && timeS >= v.duration;
      if (playing && !past) {
        if (v.paused) void v.play().catch(() => undefined);
        if (!v.seeking && Math.abs(v.currentTime - target) > toleranceS) v.currentTime = target;
      } else {
        if (!v.paused) v.pause();
        if (Math.abs(v.currentTime - target) > 1e-4) v.currentTime = target;
      }
    };
    follow();
    v.addEventListener('loadedmetadata', follow);
    if (leads) {
      clock.follow(() => {
        if (v.ended || v.error || (Number.isFinite(v.duration) && clock.snapshot.timeS >= v.duration)) return 'absent';
        return v.seeking || v.paused || v.readyState < HTMLMediaElement.HAVE_FUTURE_DATA ? 'waiting' : v.currentTime;
      });
    }
    const unsubscribe = clock.subscribe(follow);
    return () => {
      unsubscribe();
      v.removeEventListener('loadedmetadata', follow);
      if (leads) clock.follow(undefined);
    };
  }, [clock, toleranceS, leads]);
  return (
    <figure style={{ margin: 0 }}>
      <video
        ref={element}
        src={video.url}
        muted
        playsInline
        preload="auto"
        aria-label={`Video ${video.label}`}
        style={{ width: '100%', display: 'block', background: '#000' }}
      />
      <Text component="figcaption" size="xs" c="dimmed">
        {video.label}
      </Text>
    </figure>
  );
}

/** The trial's videos beside the scene, all on the one clock; the first leads while it plays. */
export function SyncedVideos({
  videos,
  clock,
  toleranceS,
}: {
  videos: TrialVideo[];
  clock: PlaybackClock;
  toleranceS: number;
}) {
  return (
    <SimpleGrid cols={videos.length > 2 ? 2 : 1} spacing="xs">
      {videos.map((video, i) => (
        <ClockedVideo key={video.url} video={video} clock={clock} toleranceS={toleranceS} leads={i === 0} />
      ))}
    </SimpleGrid>
  );
}
