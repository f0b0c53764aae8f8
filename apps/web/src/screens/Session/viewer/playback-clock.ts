import { PLAYBACK_SPEEDS } from '@kinetrace/contracts';
import { useEffect, useSyncExternalStore } from 'react';

export type PlaybackSpeed = (typeof PLAYBACK_SPEEDS)[number];

export interface PlaybackState {
  timeS: number;
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
  /** While it plays, the leading video's own clock: the scene then follows the picture exactly. */
  private leader: (() => number | undefined) | undefined;

  constructor(
    readonly startS: number,
    readonly endS: number,
    /** One step of the step buttons (a 3D frame). */
    readonly frameS: number,
  ) {
    this.state = { timeS: startS, playing: false, speed: 1, loop: true };
  }

  get snapshot(): PlaybackState {
    return this.state;
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  private set(change: Partial<PlaybackState>): void {
    this.state = { ...this.state, ...change };
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

  /** `read` gives the leading video's time, or undefined while it cannot lead (seeking, ended, not loaded). */
  follow(read: (() => number | undefined) | undefined): void {
    this.leader = read;
  }

  /** Advances to the animation frame at `nowMs` (a requestAnimationFrame timestamp). */
  tick(nowMs: number): void {
    if (!this.state.playing) return;
    const elapsedS = this.lastFrameMs === undefined ? 0 : ((nowMs - this.lastFrameMs) / 1000) * this.state.speed;
    this.lastFrameMs = nowMs;
    const led = this.leader?.();
    const next = led !== undefined && led >= this.state.timeS - this.frameS ? led : this.state.timeS + elapsedS;
    if (next === this.state.timeS) return;
    if (next <= this.endS) this.set({ timeS: next });
    else if (this.state.loop) this.set({ timeS: this.startS + ((next - this.startS) % (this.endS - this.startS || 1)) });
    else this.set({ timeS: this.endS, playing: false });
  }
}

export const usePlayback = (clock: PlaybackClock): PlaybackState => useSyncExternalStore(clock.subscribe, () => clock.snapshot);

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
