/** A rule: at most `limit` events per `windowMs`. */
export interface RateRule {
  limit: number;
  windowMs: number;
}

export interface RateLimiter {
  /** Records an event for `key`; answers how long to wait when the rule is exceeded (0 when allowed). */
  hit(key: string, rule: RateRule): number;
}

/**
 * Sliding-window counts in memory. One server process keeps its own counts; several servers behind a
 * load balancer would each allow the limit (acceptable for abuse throttling, documented in the README).
 */
export function createMemoryRateLimiter(now: () => number = Date.now): RateLimiter {
  const events = new Map<string, number[]>();
  let lastSweep = now();
  return {
    hit(key, rule) {
      const time = now();
      if (time - lastSweep > 60_000) {
        for (const [k, stamps] of events) if (stamps[stamps.length - 1] <= time - 3_600_000) events.delete(k);
        lastSweep = time;
      }
      const recent = (events.get(key) ?? []).filter((stamp) => stamp > time - rule.windowMs);
      if (recent.length >= rule.limit) {
        events.set(key, recent);
        return (recent[0] + rule.windowMs - time) / 1000;
      }
      recent.push(time);
      events.set(key, recent);
      return 0;
    },
  };
}
