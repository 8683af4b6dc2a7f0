/**
 * A fixed-window counter per key, in process memory. Enough to blunt brute force and runaway
 * clients on one web process; behind several processes each keeps its own window.
 */
export interface RateLimiter {
  take(key: string): { allowed: boolean; retryAfterSeconds: number };
}

export function createRateLimiter(options: { limit: number; windowMs: number; now?: () => number }): RateLimiter {
  const now = options.now ?? Date.now;
  const windows = new Map<string, { start: number; count: number }>();
  return {
    take(key) {
      const at = now();
      let window = windows.get(key);
      if (!window || at - window.start >= options.windowMs) {
        window = { start: at, count: 0 };
        windows.set(key, window);
        if (windows.size > 10_000) {
          for (const [k, w] of windows) if (at - w.start >= options.windowMs) windows.delete(k);
        }
      }
      window.count++;
      const allowed = window.count <= options.limit;
      return { allowed, retryAfterSeconds: allowed ? 0 : Math.ceil((window.start + options.windowMs - at) / 1000) };
    },
  };
}
