/** A rule: at most `limit` events per `windowMs`. */
export interface RateRule {
  limit: number;
  windowMs: number;
}

/**
 * Growing delays: the first `freeFailures` failures within `windowMs` cost nothing, then each further
 * failure makes the next try wait twice as long as the one before, from `firstDelayMs` up to `maxDelayMs`.
 */
export interface BackoffRule {
  freeFailures: number;
  firstDelayMs: number;
  maxDelayMs: number;
  windowMs: number;
}

export interface RateLimiter {
  /** Records an event for `key`; answers how long to wait when the rule is exceeded (0 when allowed). */
  hit(key: string, rule: RateRule): number;
  /**
   * One event under several keys (a client address and a recipient, say): when any key is at its limit,
   * records nothing and answers the longest wait; otherwise records the event under every key and answers 0.
   */
  hitAll(keys: [string, RateRule][]): number;
  /** How long (seconds) `key` must wait under `rule` before its next try (0: now), recording nothing. */
  wait(key: string, rule: RateRule | BackoffRule): number;
  /** Records one event (a failure) for `key`. */
  record(key: string): void;
  /** Forgets the events of `key` (its owner succeeded). */
  forget(key: string): void;
}

/** Events older than this are dropped whatever the rule; every rule's window is at most this long. */
const LONGEST_WINDOW_MS = 24 * 3_600_000;

/**
 * Sliding-window counts in memory. One server process keeps its own counts; several servers behind a
 * load balancer would each allow the limit (acceptable for abuse throttling, documented in the README).
 */
export function createMemoryRateLimiter(now: () => number = Date.now): RateLimiter {
  const events = new Map<string, number[]>();
  let lastSweep = now();

  /** The key's events within the window, oldest first (sweeping forgotten keys once a minute). */
  function recent(key: string, windowMs: number, time: number): number[] {
    if (time - lastSweep > 60_000) {
      for (const [k, stamps] of events) if (stamps[stamps.length - 1] <= time - LONGEST_WINDOW_MS) events.delete(k);
      lastSweep = time;
    }
    return (events.get(key) ?? []).filter((stamp) => stamp > time - windowMs);
  }

  function waitMs(key: string, rule: RateRule | BackoffRule, time: number): number {
    const stamps = recent(key, rule.windowMs, time);
    if ('limit' in rule) return stamps.length >= rule.limit ? stamps[0] + rule.windowMs - time : 0;
    const beyondFree = stamps.length - rule.freeFailures;
    if (beyondFree < 0 || stamps.length === 0) return 0;
    const delayMs = Math.min(rule.firstDelayMs * 2 ** beyondFree, rule.maxDelayMs);
    return Math.max(0, stamps[stamps.length - 1] + delayMs - time);
  }

  function record(key: string, time: number): void {
    const stamps = (events.get(key) ?? []).filter((stamp) => stamp > time - LONGEST_WINDOW_MS);
    stamps.push(time);
    events.set(key, stamps);
  }

  return {
    hit(key, rule) {
      const time = now();
      const waitingMs = waitMs(key, rule, time);
      if (waitingMs > 0) return waitingMs / 1000;
      record(key, time);
      return 0;
    },
    hitAll(keys) {
      const time = now();
      const waitingMs = Math.max(0, ...keys.map(([key, rule]) => waitMs(key, rule, time)));
      if (waitingMs > 0) return waitingMs / 1000;
      for (const [key] of keys) record(key, time);
      return 0;
    },
    wait: (key, rule) => waitMs(key, rule, now()) / 1000,
    record: (key) => record(key, now()),
    forget: (key) => void events.delete(key),
  };
}
