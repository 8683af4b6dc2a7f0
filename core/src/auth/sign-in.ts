import { setTimeout as sleep } from 'node:timers/promises';
import { DomainError, isDomainError } from '../errors/index.ts';
import type { RouteActor, UiActor } from './actor.ts';
import type { AuditTrail } from './audit-trail.ts';
import type { SignInThrottle, ThrottleDecision } from './sign-in-throttle.ts';
import type { UserStore } from './users.ts';

export const SIGN_IN_FAILED_ACTION = 'auth.sign_in.failed';

/** Who a failed attempt is recorded as: nobody is signed in yet, so the sign-in route itself. */
const SIGN_IN_ROUTE: RouteActor = { type: 'route', id: 'sign-in', route: '/sign-in' };

export interface SignIn {
  /**
   * The user's actor when the password matches. Refused with RATE_LIMITED (details carry
   * `retryAfterSeconds`) while this address is throttled for this account or for all of them,
   * with UNAUTHENTICATED for a wrong password or an unknown user; an account under attack only
   * answers more slowly (sign-in-throttle.ts). Failures are audited, never with the password.
   */
  attempt(input: { email: string; password: string; address?: string }): Promise<UiActor>;
}

export function createSignIn(deps: { users: UserStore; audit: AuditTrail; throttle: SignInThrottle; wait?: (ms: number) => Promise<unknown> }): SignIn {
  const { throttle } = deps;
  const wait = deps.wait ?? sleep;
  return {
    async attempt({ email, password, address = 'unknown' }) {
      // The same form as the users' lookup, bounded so a key stays small whatever was typed.
      const account = email.trim().toLowerCase().slice(0, 320);
      const decision = await throttle.begin({ account, address });
      if (!decision.allowed) {
        if (decision.first) {
          deps.audit.record(SIGN_IN_ROUTE, { action: SIGN_IN_FAILED_ACTION, resourceType: 'user', resourceId: account, details: { address, reason: 'throttled', scope: decision.scope } });
        }
        throw tooManyAttempts(decision.retryAfterSeconds);
      }
      try {
        // The account's slowdown, before the check and whatever its outcome, so it tells nothing.
        if (decision.delayMs > 0) await wait(decision.delayMs);
        const user = await deps.users.verifyCredentials(email, password);
        await settle(decision, 'success');
        return user;
      } catch (error) {
        if (isDomainError(error) && error.code === 'UNAUTHENTICATED') {
          await settle(decision, 'failure');
          deps.audit.record(SIGN_IN_ROUTE, { action: SIGN_IN_FAILED_ACTION, resourceType: 'user', resourceId: account, details: { address, reason: 'invalid_credentials' } });
        } else {
          // Busy (no scrypt slot) or the database: no verdict on the password, nothing counted.
          await settle(decision, 'undecided');
        }
        throw error;
      }
    },
  };
}

/** A release the database refused leaves the attempt counted until its window closes: the safe side. */
async function settle(decision: Extract<ThrottleDecision, { allowed: true }>, outcome: 'success' | 'failure' | 'undecided'): Promise<void> {
  await decision.settle(outcome).catch(() => undefined);
}

function tooManyAttempts(retryAfterSeconds: number): DomainError {
  const minutes = Math.ceil(retryAfterSeconds / 60);
  const wait = retryAfterSeconds < 60 ? `${retryAfterSeconds} second${retryAfterSeconds === 1 ? '' : 's'}` : `${minutes} minute${minutes === 1 ? '' : 's'}`;
  return new DomainError('RATE_LIMITED', `Too many failed sign-in attempts. Wait ${wait} and try again.`, { details: { retryAfterSeconds } });
}
