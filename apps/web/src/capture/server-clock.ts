import { estimateClockOffsetMs, type ClockSample } from '@kinetrace/contracts';
import { fetchServerTime } from '../api/capture.ts';

/** Round trips per measurement: the shortest of them bounds the error (see estimateClockOffsetMs). */
const SAMPLES_PER_MEASUREMENT = 6;
/** Phone clocks drift (and get corrected by the OS); measuring again every half minute keeps the offset fresh. */
export const CLOCK_REMEASURE_INTERVAL_MS = 30_000;

/** Server clock minus this phone's clock, from several round trips to GET /capture/time/. */
export async function measureClockOffsetMs(): Promise<{ offsetMs: number; uncertaintyMs: number }> {
  const samples: ClockSample[] = [];
  for (let index = 0; index < SAMPLES_PER_MEASUREMENT; index += 1) {
    const sentAtLocalMs = Date.now();
    const { server_time_ms } = await fetchServerTime();
    samples.push({ sentAtLocalMs, serverTimeMs: server_time_ms, receivedAtLocalMs: Date.now() });
  }
  return estimateClockOffsetMs(samples);
}

/** The server's clock as seen from the phone: `now()` is the local clock plus the last measured offset. */
export class ServerClock {
  private offsetMs = 0;

  async measure(): Promise<void> {
    this.offsetMs = (await measureClockOffsetMs()).offsetMs;
  }

  now(): number {
    return Date.now() + this.offsetMs;
  }

  /** A time of the phone's clock (Date.now() scale) on the server's clock. */
  toServerMs(localMs: number): number {
    return localMs + this.offsetMs;
  }
}
