import { slotNumber, type CounterWindow, type WindowCounters } from '../db/index.ts';

/**
 * Failed sign-ins counted in the database, shared by every web process (ADR 0030), after the OWASP authentication cheat sheet's
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
 * Each key counts in a fixed window that opens at its first attempt (core/src/db/window-counters.ts).
 * Attempts still being checked count, so a burst of concurrent guesses cannot slip past a limit
 * before the first one fails; an attempt that ends in a success or undecided is taken back.
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

/** The scopes that refuse; the account only slows down. */
export type ThrottleScope = 'pair' | 'address';

export type ThrottleDecision =
  | {
      allowed: true;
      /** How long to wait before checking the password: the account's slowdown, 0 when it has none. */
      delayMs: number;
      /** Records the attempt's outcome; call it exactly once for an allowed attempt. */
      settle(outcome: 'success' | 'failure' | 'undecided'): Promise<void>;
    }
  | {
      allowed: false;
      scope: ThrottleScope;
      retryAfterSeconds: number;
      /** True for the first refusal at this key's count: worth one audit row, not one per request. */
      first: boolean;
    };

export interface SignInThrottle {
  /** Reserves an attempt for the account and address, or refuses it; settle an allowed one exactly once. */
  begin(keys: { account: string; address: string }): Promise<ThrottleDecision>;
}

export function createSignInThrottle(options: { counters: WindowCounters; limits?: SignInLimits; now?: () => number }): SignInThrottle {
  const { counters } = options;
  const limits = options.limits ?? SIGN_IN_LIMITS;
  const now = options.now ?? Date.now;

  const slowdown = (heldBefore: number): number => {
    const { freeFailures, firstDelayMs, maxDelayMs } = limits.account;
    const extra = heldBefore - freeFailures;
    // The exponent is capped so a long attack cannot overflow it; maxDelayMs caps the result anyway.
    return extra < 0 ? 0 : Math.min(maxDelayMs, firstDelayMs * 2 ** Math.min(extra, 30));
  };

  return {
    async begin({ account, address }) {
      const [pairWindow, addressWindow, accountWindow] = await Promise.all([
        counters.window(`sign-in:pair:${JSON.stringify([account, address])}`, limits.pair.windowMs),
        counters.window(`sign-in:address:${address}`, limits.address.windowMs),
        counters.window(`sign-in:account:${account}`, limits.account.windowMs),
      ]);
      const refusing = [
        { scope: 'pair' as const, window: pairWindow },
        { scope: 'address' as const, window: addressWindow },
      ];
      const taken = await Promise.all(refusing.map(({ scope, window }) => counters.take(window, limits[scope].failures)));

      if (taken.some((slot) => slot === null)) {
        // Refused attempts count nowhere: give back a slot the other scope granted.
        await Promise.all(refusing.map(({ window }, i) => (taken[i] ? counters.release(window, [taken[i].slot]) : undefined)));
        const at = now();
        let refusal: Extract<ThrottleDecision, { allowed: false }> | undefined;
        for (const [i, { scope, window }] of refusing.entries()) {
          if (taken[i]) continue;
          const first = await counters.firstRefusal(window, await counters.held(window));
          // A window full only of attempts in flight may free up in a moment; a second is the floor.
          const retryAfterSeconds = Math.max(1, Math.ceil((window.endsAt - at) / 1000));
          // Both full: name the longer wait, so a client that honours Retry-After is not refused again.
          if (!refusal || retryAfterSeconds > refusal.retryAfterSeconds) refusal = { allowed: false, scope, retryAfterSeconds, first: first || (refusal?.first ?? false) };
          else if (first) refusal.first = true;
        }
        return refusal!;
      }

      const slowing = (await counters.take(accountWindow))!;
      const held: { scope: ThrottleScope | 'account'; window: CounterWindow; slot: string }[] = [...refusing.map(({ scope, window }, i) => ({ scope, window, slot: taken[i]!.slot })), { scope: 'account', window: accountWindow, slot: slowing.slot }];
      let settled = false;
      return {
        allowed: true,
        delayMs: slowdown(slowing.heldBefore),
        async settle(outcome) {
          if (settled) return;
          settled = true;
          // A failure stays counted: its slots were taken when the attempt began.
          if (outcome === 'failure') return;
          await Promise.all(
            held.map(({ scope, window, slot }) => {
              // The pair proved the password: its count starts over, up to this attempt. The address's
              // does not, or one valid account would reset its count for guesses at every other; nor
              // the account's, or the owner's sign-in would lift the slowdown for everyone guessing at it.
              if (outcome === 'success' && scope === 'pair') return counters.release(window, slotsUpTo(slot));
              return counters.release(window, [slot]);
            }),
          );
        },
      };
    },
  };
}

/** Every dense slot from the first to `slot`. */
function slotsUpTo(slot: string): string[] {
  return Array.from({ length: Number(slot) }, (_, i) => slotNumber(i + 1));
}
