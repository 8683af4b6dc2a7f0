import { randomBytes, scryptSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createPasswordHashing, hashPassword, SCRYPT_CONCURRENCY, SCRYPT_MAX_WAIT_MS, SCRYPT_MAX_WAITING, scryptLoad, verifyPassword } from './passwords.ts';
import type { StartTimer } from './slots.ts';

const PASSWORD = 'correct horse battery';

/**
 * Real derivations on slots whose bounded wait never runs out: however slow the machine, a
 * queued check waits its turn, so the counts below cannot depend on the time (issue 25, part 7).
 * The wait running out is slots.test.ts's business.
 */
function hashingWithoutTimeouts() {
  const armed = new Set<{ ms: number }>();
  const startTimer: StartTimer = (_onTimeout, ms) => {
    const timer = { ms };
    armed.add(timer);
    return () => armed.delete(timer);
  };
  return { hashing: createPasswordHashing({ startTimer }), armed: () => [...armed].map((timer) => timer.ms) };
}

/** A stored hash in the production format at a small N, so queueing tests cost milliseconds, not seconds. */
function cheapStoredHash(password: string): string {
  const salt = randomBytes(16);
  const key = scryptSync(password, salt, 32, { N: 2 ** 10, r: 8, p: 1 });
  return ['scrypt', 2 ** 10, 8, 1, salt.toString('base64url'), key.toString('base64url')].join('$');
}

describe('scrypt concurrency (issue 11, item 8)', () => {
  it('runs at most SCRYPT_CONCURRENCY derivations at once; the rest wait, each for at most SCRYPT_MAX_WAIT_MS', async () => {
    const { hashing, armed } = hashingWithoutTimeouts();
    const stored = cheapStoredHash(PASSWORD);
    const checks = Array.from({ length: 6 }, () => hashing.verifyPassword(PASSWORD, stored));
    expect(hashing.load()).toEqual({ active: SCRYPT_CONCURRENCY, waiting: 6 - SCRYPT_CONCURRENCY });
    expect(armed()).toEqual(Array(6 - SCRYPT_CONCURRENCY).fill(SCRYPT_MAX_WAIT_MS));
    expect(await Promise.all(checks)).toEqual(Array(6).fill(true));
    expect(hashing.load()).toEqual({ active: 0, waiting: 0 });
    expect(armed()).toEqual([]);
  });

  it('refuses attempts past the queue at once, with RATE_LIMITED, and checks every queued one', async () => {
    const { hashing } = hashingWithoutTimeouts();
    const stored = cheapStoredHash(PASSWORD);
    const checks = Array.from({ length: SCRYPT_CONCURRENCY + SCRYPT_MAX_WAITING + 3 }, () => hashing.verifyPassword(PASSWORD, stored));
    expect(hashing.load()).toEqual({ active: SCRYPT_CONCURRENCY, waiting: SCRYPT_MAX_WAITING });
    const results = await Promise.allSettled(checks);
    expect(results.slice(0, SCRYPT_CONCURRENCY + SCRYPT_MAX_WAITING)).toEqual(Array(SCRYPT_CONCURRENCY + SCRYPT_MAX_WAITING).fill({ status: 'fulfilled', value: true }));
    const refused = results.slice(SCRYPT_CONCURRENCY + SCRYPT_MAX_WAITING);
    expect(refused.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect((refused[0] as PromiseRejectedResult).reason).toMatchObject({ code: 'RATE_LIMITED', message: 'The server is busy checking other passwords. Try again in a moment.' });
  });

  it("the process's hashing and checking share one set of slots, which scryptLoad reports", async () => {
    const hashed = hashPassword(PASSWORD);
    const checked = verifyPassword('a wrong password', cheapStoredHash(PASSWORD));
    // Two, so nobody queues: no bounded wait is running.
    expect(scryptLoad()).toEqual({ active: 2, waiting: 0 });
    const stored = await hashed;
    expect(stored).toMatch(/^scrypt\$65536\$8\$1\$/);
    expect(await checked).toBe(false);
    expect(scryptLoad()).toEqual({ active: 0, waiting: 0 });
    expect(await verifyPassword(PASSWORD, stored)).toBe(true);
    expect(scryptLoad()).toEqual({ active: 0, waiting: 0 });
  });
});
