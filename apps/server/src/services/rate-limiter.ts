import type { EventsByKey, RateEventsRepository } from '../repositories/rate-events-repository.ts';

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
  /** Records an event for `key`; answers how long (seconds) to wait when the rule is exceeded (0 when allowed). */
  hit(key: string, rule: RateRule): Promise<number>;
  /**
   * One event under several keys (a client address and a recipient, say): when any key is at its limit,
   * records nothing and answers the longest wait; otherwise records the event under every key and answers 0.
   */
  hitAll(keys: [string, RateRule][]): Promise<number>;
  /** How long (seconds) the longest-waiting of `keys` must wait under its rule before its next try (0: now), recording nothing. */
  wait(keys: [string, RateRule | BackoffRule][]): Promise<number>;
  /** Records one event (a failure) under each key. */
  record(keys: string[]): Promise<void>;
  /** Forgets the events of `key` (its owner succeeded). */
  forget(key: string): Promise<void>;
}

/** Events older than this are dropped whatever the rule; every rule's window is at most this long. */
const LONGEST_WINDOW_MS = 24 * 3_600_000;
/** How often a server drops the keys with no event within the longest window. */
const SWEEP_EVERY_MS = 60_000;

/**
 * How long (ms) a key with these event times must wait under `rule` at `timeMs` (0: not at all). The times are
 * taken by their earliest and latest, not by their order: servers whose clocks differ slightly append them out of order.
 */
function waitMs(stamps: number[], rule: RateRule | BackoffRule, timeMs: number): number {
  const recent = stamps.filter((stamp) => stamp > timeMs - rule.windowMs);
  if ('limit' in rule) return recent.length >= rule.limit ? Math.min(...recent) + rule.windowMs - timeMs : 0;
  const beyondFree = recent.length - rule.freeFailures;
  if (beyondFree < 0 || recent.length === 0) return 0;
  const delayMs = Math.min(rule.firstDelayMs * 2 ** beyondFree, rule.maxDelayMs);
  return Math.max(0, Math.max(...recent) + delayMs - timeMs);
}

/**
 * Sliding-window counts kept in the database (repositories/rate-events-repository.ts), so that every server
 * process on it enforces one limit: a client cannot get a limit's worth from each server behind a load balancer.
 */
export function createRateLimiter(events: RateEventsRepository, now: () => number = Date.now): RateLimiter {
  let lastSweepMs = now();

  /** Drops forgotten keys, at most once a minute per server. */
  async function sweep(timeMs: number): Promise<void> {
    if (timeMs - lastSweepMs < SWEEP_EVERY_MS) return;
    lastSweepMs = timeMs;
    await events.removeExpired(timeMs - LONGEST_WINDOW_MS);
  }

  const longestWaitMs = (stamps: EventsByKey, keys: [string, RateRule | BackoffRule][], timeMs: number) =>
    Math.max(0, ...keys.map(([key, rule]) => waitMs(stamps.get(key) ?? [], rule, timeMs)));

  async function hitAll(keys: [string, RateRule][]): Promise<number> {
    const timeMs = now();
    await sweep(timeMs);
    const waitingMs = await events.appendIfAllowed(
      keys.map(([key]) => key),
      timeMs,
      timeMs - LONGEST_WINDOW_MS,
      (stamps) => {
        const answer = longestWaitMs(stamps, keys, timeMs);
        return { allowed: answer === 0, answer };
      },
    );
    return waitingMs / 1000;
  }

  return {
    hit: (key, rule) => hitAll([[key, rule]]),
    hitAll,
    async wait(keys) {
      const timeMs = now();
      return longestWaitMs(await events.read(keys.map(([key]) => key)), keys, timeMs) / 1000;
    },
    async record(keys) {
      const timeMs = now();
      await sweep(timeMs);
      await events.append(keys, timeMs, timeMs - LONGEST_WINDOW_MS);
    },
    forget: (key) => events.forget(key),
  };
}
