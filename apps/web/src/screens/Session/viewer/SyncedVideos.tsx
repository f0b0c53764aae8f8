import { Text } from '@mantine/core';
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
    // Chromium may settle a pause at the decoder's position rather than the time asked (a pause during a seek
    // drops the seek): once the element settles on a paused clock, it is brought back to the clock's time.
    // While playing the clock's ticks do that, and the leader's own time moves the clock.
    const settle = () => !clock.snapshot.playing && follow();
    v.addEventListener('pause', settle);
    v.addEventListener('seeked', settle);
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
      v.removeEventListener('pause', settle);
      v.removeEventListener('seeked', settle);
      if (leads) clock.follow(undefined);
    };
  }, [clock, toleranceS, leads]);
  return (
    <figure style={{ margin: 0, display: 'flex', flexDirection: 'column', minHeight: 0 }}>
      <video
        ref={element}
        src={video.url}
        muted
        playsInline
        preload="auto"
        aria-label={`Video ${video.label}`}
        style={{
          flex: '1 1 0',
          minHeight: 0,
          width: '100%',
          objectFit: 'contain',
          display: 'block',
          background: '#000',
        }}
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
  const cols = videos.length > 2 ? 2 : 1;
  // The videos share the height they are given (the scene's) in equal rows, each picture fitted in its cell.
  return (
    <div
      style={{
        display: 'grid',
        gridTemplateColumns: `repeat(${cols}, minmax(0, 1fr))`,
        gridTemplateRows: `repeat(${Math.ceil(videos.length / cols)}, minmax(0, 1fr))`,
        gap: 'var(--mantine-spacing-xs)',
        height: '100%',
      }}
    >
      {videos.map((video, i) => (
        <ClockedVideo key={video.url} video={video} clock={clock} toleranceS={toleranceS} leads={i === 0} />
      ))}
    </div>
  );
}
