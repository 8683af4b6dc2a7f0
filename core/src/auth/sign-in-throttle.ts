/**
 * Failed sign-ins counted per account and per client address, in this process's memory: a
 * fixed window opens at a key's first attempt, and once `failures` have been spent in it the key
 * is refused until the window closes. Attempts still being checked count against the limit, so a
 * burst of concurrent guesses cannot slip past it before the first one fails.
 *
 * Per process: behind several web processes each keeps its own counters (a restart clears them).
 */
export interface ThrottleLimit {
  failures: number;
  windowMs: number;
}

export const SIGN_IN_LIMITS: { account: ThrottleLimit; address: ThrottleLimit } = {
  account: { failures: 5, windowMs: 15 * 60_000 },
  address: { failures: 20, windowMs: 15 * 60_000 },
};

/** Keys kept per scope before the oldest windows are dropped (memory stays bounded under a spray of names). */
const MAX_KEYS = 10_000;

export type ThrottleScope = 'account' | 'address';

export type ThrottleDecision =
  | { allowed: true; settle(outcome: 'success' | 'failure' | 'undecided'): void }
  | {
      allowed: false;
      scope: ThrottleScope;
      retryAfterSeconds: number;
      /** True for the first refusal of this key's window: worth one audit row, not one per request. */
      first: boolean;
    };

export interface SignInThrottle {
  /** Reserves an attempt for the account and address, or refuses it; settle an allowed one exactly once. */
  begin(keys: { account: string; address: string }): ThrottleDecision;
}

interface Window {
  start: number;
  failures: number;
  inFlight: number;
  refused: boolean;
}

export function createSignInThrottle(options: { limits?: typeof SIGN_IN_LIMITS; now?: () => number } = {}): SignInThrottle {
  const limits = options.limits ?? SIGN_IN_LIMITS;
  const now = options.now ?? Date.now;
  const windows: Record<ThrottleScope, Map<string, Window>> = { account: new Map(), address: new Map() };

  const current = (scope: ThrottleScope, key: string, at: number): Window => {
    const map = windows[scope];
    let window = map.get(key);
    if (window && window.inFlight === 0 && at - window.start >= limits[scope].windowMs) {
      map.delete(key);
      window = undefined;
    }
    if (!window) {
      window = { start: at, failures: 0, inFlight: 0, refused: false };
      map.set(key, window);
      if (map.size > MAX_KEYS) prune(scope, at);
    }
    return window;
  };

  const prune = (scope: ThrottleScope, at: number) => {
    const map = windows[scope];
    for (const [key, window] of map) if (window.inFlight === 0 && at - window.start >= limits[scope].windowMs) map.delete(key);
    // Still too many: drop the oldest idle ones (a Map iterates in insertion order).
    for (const [key, window] of map) {
      if (map.size <= MAX_KEYS) break;
      if (window.inFlight === 0) map.delete(key);
    }
  };

  return {
    begin({ account, address }) {
      const at = now();
      const keyed = [
        ['account', account],
        ['address', address],
      ] as const;
      const held = keyed.map(([scope, key]) => ({ scope, window: current(scope, key, at) }));
      for (const { scope, window } of held) {
        if (window.failures + window.inFlight >= limits[scope].failures) {
          const first = !window.refused;
          window.refused = true;
          // A window full only of attempts in flight may free up in a moment; a second is the floor.
          const retryAfterSeconds = Math.max(1, Math.ceil((window.start + limits[scope].windowMs - at) / 1000));
          return { allowed: false, scope, retryAfterSeconds, first };
        }
      }
      // A new window starts with its first attempt; its clock is the attempt's time.
      for (const { window } of held) window.inFlight++;
      let settled = false;
      return {
        allowed: true,
        settle(outcome) {
          if (settled) return;
          settled = true;
          for (const { scope, window } of held) {
            window.inFlight--;
            if (outcome === 'failure') window.failures++;
            // The account's owner proved the password: its count starts over. The address's does
            // not, or one valid account would reset the count for guesses at every other.
            if (outcome === 'success' && scope === 'account') {
              window.failures = 0;
              window.refused = false;
            }
          }
        },
      };
    },
  };
}
