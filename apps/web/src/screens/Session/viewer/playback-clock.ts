import { PLAYBACK_SPEEDS } from '@kinetrace/contracts';
import { useEffect, useSyncExternalStore } from 'react';

export type PlaybackSpeed = (typeof PLAYBACK_SPEEDS)[number];

/** The leading video's time in seconds; 'waiting' while it seeks or loads; 'absent' when it has ended or cannot play. */
export type LeaderTime = number | 'waiting' | 'absent';

export interface PlaybackState {
  timeS: number;
  /** performance.now() when `timeS` was last set: while playing, the time at wall-clock w is timeS + (w − atMs) × speed. */
  atMs: number;
  playing: boolean;
  speed: PlaybackSpeed;
  loop: boolean;
}

/**
 * The one time base of a trial's view: the 3D scene, every video and the controls read it. While
 * playing it advances with the animation frames' timestamps times the speed; at the end it loops
 * back to the start or stops.
 */
export class PlaybackClock {
  private state: PlaybackState;
  private readonly listeners = new Set<() => void>();
  private lastFrameMs: number | undefined;
  /** While it plays, the leading video sets the time, so the scene shows the frame the picture shows. */
  private leader: (() => LeaderTime) | undefined;

  constructor(
    readonly startS: number,
    readonly endS: number,
    /** One step of the step buttons (a 3D frame). */
    readonly frameS: number,
  ) {
    this.state = { timeS: startS, atMs: performance.now(), playing: false, speed: 1, loop: true };
  }

  get snapshot(): PlaybackState {
    return this.state;
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  private set(change: Partial<Omit<PlaybackState, 'atMs'>>): void {
    this.state = { ...this.state, ...change, atMs: change.timeS === undefined ? this.state.atMs : performance.now() };
    for (const listener of this.listeners) listener();
  }

  private clamp(timeS: number): number {
    return Math.min(this.endS, Math.max(this.startS, timeS));
  }

  play(): void {
    this.lastFrameMs = undefined;
    // Playing from the end starts over, as a player does.
    this.set({ playing: true, timeS: this.state.timeS >= this.endS ? this.startS : this.state.timeS });
  }

  pause(): void {
    this.set({ playing: false });
  }

  seek(timeS: number): void {
    this.lastFrameMs = undefined;
    this.set({ timeS: this.clamp(timeS) });
  }

  step(frames: number): void {
    this.set({ playing: false });
    this.seek(this.state.timeS + frames * this.frameS);
  }

  setSpeed(speed: PlaybackSpeed): void {
    this.set({ speed });
  }

  setLoop(loop: boolean): void {
    this.set({ loop });
  }

  /** `read` tells the leading video's time; undefined stops following it. */
  follow(read: (() => LeaderTime) | undefined): void {
    this.leader = read;
  }

  /** Advances to the animation frame at `nowMs` (a requestAnimationFrame timestamp). */
  tick(nowMs: number): void {
    if (!this.state.playing) return;
    const elapsedS = this.lastFrameMs === undefined ? 0 : ((nowMs - this.lastFrameMs) / 1000) * this.state.speed;
    this.lastFrameMs = nowMs;
    const led = this.leader?.() ?? 'absent';
    // A video still seeking or loading holds the time, as a player waits for its picture.
    if (led === 'waiting') return;
    const next = led === 'absent' ? this.state.timeS + elapsedS : led;
    if (next === this.state.timeS) return;
    if (next <= this.endS) this.set({ timeS: next });
    else if (this.state.loop)
      this.set({ timeS: this.startS + ((next - this.startS) % (this.endS - this.startS || 1)) });
    else this.set({ timeS: this.endS, playing: false });
  }
}

export const usePlayback = (clock: PlaybackClock): PlaybackState =>
  useSyncExternalStore(clock.subscribe, () => clock.snapshot);

/** Drives the clock with animation frames while the component is mounted. */
export function usePlaybackLoop(clock: PlaybackClock): void {
  useEffect(() => {
    let handle = requestAnimationFrame(function frame(nowMs) {
      clock.tick(nowMs);
      handle = requestAnimationFrame(frame);
    });
    return () => cancelAnimationFrame(handle);
  }, [clock]);
}
