/**
 * Failed sign-ins counted in this process's memory, after the OWASP authentication cheat sheet's
 * advice on lockout: an account that locks after a few failures can be locked by anyone who
 * knows its email, so refusals fall on whoever is guessing and the account itself only slows down.
 *
 * - an (account, address) pair is refused once it has spent `pair.failures`: one address guessing
 *   one account;
 * - an address is refused once it has spent `address.failures` across accounts: a spray;
 * - an account is never refused. Once `account.freeFailures` have failed against it (from any
 *   address), every attempt at it waits before its password is checked, right or wrong:
 *   `firstDelayMs`, doubling with each further failure, at most `maxDelayMs`.
 *
 * Each key counts in a fixed window that opens at its first attempt. Attempts still being checked
 * count, so a burst of concurrent guesses cannot slip past a limit before the first one fails.
 *
 * Per process: behind several web processes each keeps its own counters (a restart clears them).
 */
export interface ThrottleLimit {
  failures: number;
  windowMs: number;
}

export interface SlowdownLimit {
  /** Failures in the window before attempts start to wait. */
  freeFailures: number;
  windowMs: number;
  firstDelayMs: number;
  maxDelayMs: number;
}

export interface SignInLimits {
  pair: ThrottleLimit;
  address: ThrottleLimit;
  account: SlowdownLimit;
}

export const SIGN_IN_LIMITS: SignInLimits = {
  pair: { failures: 5, windowMs: 15 * 60_000 },
  address: { failures: 20, windowMs: 15 * 60_000 },
  account: { freeFailures: 5, windowMs: 15 * 60_000, firstDelayMs: 250, maxDelayMs: 2_000 },
};

/** Keys kept per scope before the oldest windows are dropped (memory stays bounded under a spray of names). */
const MAX_KEYS = 10_000;

/** The scopes that refuse; the account only slows down. */
export type ThrottleScope = 'pair' | 'address';
type Scope = ThrottleScope | 'account';

export type ThrottleDecision =
  | {
      allowed: true;
      /** How long to wait before checking the password: the account's slowdown, 0 when it has none. */
      delayMs: number;
      settle(outcome: 'success' | 'failure' | 'undecided'): void;
    }
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

export function createSignInThrottle(options: { limits?: SignInLimits; now?: () => number } = {}): SignInThrottle {
  const limits = options.limits ?? SIGN_IN_LIMITS;
  const now = options.now ?? Date.now;
  const windows: Record<Scope, Map<string, Window>> = { pair: new Map(), address: new Map(), account: new Map() };

  const isOver = (scope: Scope, window: Window, at: number) => window.inFlight === 0 && at - window.start >= limits[scope].windowMs;

  const current = (scope: Scope, key: string, at: number): Window => {
    const map = windows[scope];
    let window = map.get(key);
    if (window && isOver(scope, window, at)) {
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

  const prune = (scope: Scope, at: number) => {
    const map = windows[scope];
    for (const [key, window] of map) if (isOver(scope, window, at)) map.delete(key);
    // Still too many: drop the oldest idle ones (a Map iterates in insertion order).
    for (const [key, window] of map) {
      if (map.size <= MAX_KEYS) break;
      if (window.inFlight === 0) map.delete(key);
    }
  };

  const slowdown = (window: Window): number => {
    const { freeFailures, firstDelayMs, maxDelayMs } = limits.account;
    const extra = window.failures + window.inFlight - freeFailures;
    // The exponent is capped so a long attack cannot overflow it; maxDelayMs caps the result anyway.
    return extra < 0 ? 0 : Math.min(maxDelayMs, firstDelayMs * 2 ** Math.min(extra, 30));
  };

  return {
    begin({ account, address }) {
      const at = now();
      const refusing = [
        { scope: 'pair', window: current('pair', JSON.stringify([account, address]), at) },
        { scope: 'address', window: current('address', address, at) },
      ] as const;
      const slowing = current('account', account, at);

      let refusal: Extract<ThrottleDecision, { allowed: false }> | undefined;
      for (const { scope, window } of refusing) {
        if (window.failures + window.inFlight < limits[scope].failures) continue;
        const first = !window.refused;
        window.refused = true;
        // A window full only of attempts in flight may free up in a moment; a second is the floor.
        const retryAfterSeconds = Math.max(1, Math.ceil((window.start + limits[scope].windowMs - at) / 1000));
        // Both full: name the longer wait, so a client that honours Retry-After is not refused again.
        if (!refusal || retryAfterSeconds > refusal.retryAfterSeconds) refusal = { allowed: false, scope, retryAfterSeconds, first: first || (refusal?.first ?? false) };
        else if (first) refusal.first = true;
      }
      if (refusal) return refusal;

      const delayMs = slowdown(slowing);
      const held: { scope: Scope; window: Window }[] = [...refusing, { scope: 'account', window: slowing }];
      // A new window starts with its first attempt; its clock is the attempt's time.
      for (const { window } of held) window.inFlight++;
      let settled = false;
      return {
        allowed: true,
        delayMs,
        settle(outcome) {
          if (settled) return;
          settled = true;
          for (const { scope, window } of held) {
            window.inFlight--;
            if (outcome === 'failure') window.failures++;
            // The pair proved the password: its count starts over. The address's does not, or one
            // valid account would reset its count for guesses at every other; nor the account's,
            // or the owner's sign-in would lift the slowdown for everyone guessing at it.
            if (outcome === 'success' && scope === 'pair') {
              window.failures = 0;
              window.refused = false;
            }
          }
        },
      };
    },
  };
}
