import type { WindowCounters } from '../db/index.ts';

/**
 * A fixed-window counter per key, in process memory. Enough to blunt runaway clients on one web
 * process; behind several processes each keeps its own window. Limits against guessing use
 * `createSharedRateLimiter`, counted in the database.
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

export interface SharedRateLimiter {
  take(key: string): Promise<{ allowed: boolean; retryAfterSeconds: number }>;
}

/** A fixed-window limit per key counted in the database, so it holds across every web process (ADR 0030). */
export function createSharedRateLimiter(counters: WindowCounters, options: { name: string; limit: number; windowMs: number; now?: () => number }): SharedRateLimiter {
  const now = options.now ?? Date.now;
  return {
    async take(key) {
      const window = await counters.window(`${options.name}:${key}`, options.windowMs);
      if (await counters.take(window, options.limit)) return { allowed: true, retryAfterSeconds: 0 };
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((window.endsAt - now()) / 1000)) };
    },
  };
}
