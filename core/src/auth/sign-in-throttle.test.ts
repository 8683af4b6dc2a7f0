import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { connectDatabase, createWindowCounters, type Database } from '../db/index.ts';
import { useTestDatabase } from '../testing/index.ts';
import { createSignInThrottle, SIGN_IN_LIMITS, type SignInLimits, type SignInThrottle, type ThrottleDecision } from './sign-in-throttle.ts';

const t = useTestDatabase();
let second: Database;
beforeAll(async () => {
  second = await connectDatabase(t.uri);
});
afterAll(() => second?.close());
beforeEach(async () => {
  await t.db.models.RateLimitSlot.deleteMany({});
});

/** A throttle counting in the test database, as one web process would. */
const throttleOn = (database: Database, options: { limits?: SignInLimits; now?: () => number } = {}) => createSignInThrottle({ counters: createWindowCounters(database.models, { now: options.now }), ...options });

const { pair, address, account } = SIGN_IN_LIMITS;
/**
 * The fake clocks start now, not at 0: the rows' expiry follows the fake clock, and a server with a
 * TTL index (MongoDB, FerretDB 2) deletes rows that expired in 1970 within a minute, mid-test.
 */
const EPOCH = Date.now();

/** Begins an attempt and settles it at once with `outcome` when allowed; returns the decision. */
async function attempt(throttle: SignInThrottle, keys: { account: string; address: string }, outcome: 'success' | 'failure' | 'undecided' = 'failure'): Promise<ThrottleDecision> {
  const decision = await throttle.begin(keys);
  if (decision.allowed) await decision.settle(outcome);
  return decision;
}

describe('sign-in throttle (issue 25)', () => {
  it('refuses an address that keeps guessing one account, for the rest of the window, and only that pair', async () => {
    let clock = EPOCH;
    const throttle = throttleOn(t.db, { now: () => clock });
    for (let i = 0; i < pair.failures; i++) expect((await attempt(throttle, { account: 'a', address: 'x' })).allowed).toBe(true);
    clock += 60_000;
    expect(await attempt(throttle, { account: 'a', address: 'x' })).toEqual({ allowed: false, scope: 'pair', retryAfterSeconds: (pair.windowMs - 60_000) / 1000, first: true });
    expect(await attempt(throttle, { account: 'a', address: 'x' })).toMatchObject({ allowed: false, scope: 'pair', first: false });
    expect((await attempt(throttle, { account: 'a', address: 'y' })).allowed).toBe(true);
    expect((await attempt(throttle, { account: 'b', address: 'x' })).allowed).toBe(true);
  });

  it('refuses an address spraying many accounts once it has spent the address limit; other addresses go on', async () => {
    const throttle = throttleOn(t.db, { now: () => EPOCH });
    for (let i = 0; i < address.failures; i++) expect((await attempt(throttle, { account: `guess-${i}`, address: 'x' })).allowed).toBe(true);
    expect(await attempt(throttle, { account: 'a', address: 'x' })).toMatchObject({ allowed: false, scope: 'address', retryAfterSeconds: address.windowMs / 1000 });
    expect((await attempt(throttle, { account: 'a', address: 'y' })).allowed).toBe(true);
  });

  it('never refuses an account: after its free failures every attempt waits, 250 ms doubling up to 2 s', async () => {
    const throttle = throttleOn(t.db, { now: () => EPOCH });
    const delays: number[] = [];
    // Each address stays under its pair limit, so only the account's count grows.
    for (let from = 0; from < 4; from++) {
      for (let i = 0; i < pair.failures - 1; i++) {
        const decision = await attempt(throttle, { account: 'a', address: `x${from}` });
        expect(decision.allowed).toBe(true);
        if (decision.allowed) delays.push(decision.delayMs);
      }
    }
    expect(delays).toEqual([0, 0, 0, 0, 0, 250, 500, 1000, 2000, 2000, 2000, 2000, 2000, 2000, 2000, 2000]);
    expect(account).toMatchObject({ freeFailures: 5, firstDelayMs: 250, maxDelayMs: 2000 });
    expect(await attempt(throttle, { account: 'a', address: 'owner' }, 'success')).toMatchObject({ allowed: true, delayMs: account.maxDelayMs });
  });

  it('slows an account by the attempts still in flight, so a concurrent burst from many addresses is slowed too', async () => {
    const throttle = throttleOn(t.db, { now: () => EPOCH });
    const pending = await Promise.all(Array.from({ length: account.freeFailures }, (_, i) => throttle.begin({ account: 'a', address: `x${i}` })));
    expect(pending.map((d) => d.allowed && d.delayMs)).toEqual([0, 0, 0, 0, 0]);
    expect(await throttle.begin({ account: 'a', address: 'y' })).toMatchObject({ allowed: true, delayMs: account.firstDelayMs });
  });

  it('a success clears the pair, not the address or the account; an undecided attempt counts nothing', async () => {
    const throttle = throttleOn(t.db, { now: () => EPOCH });
    for (let i = 0; i < pair.failures - 1; i++) await attempt(throttle, { account: 'a', address: 'x' });
    for (let i = 0; i < 3; i++) await attempt(throttle, { account: 'a', address: 'x' }, 'undecided');
    await attempt(throttle, { account: 'a', address: 'x' }, 'success');
    for (let i = 0; i < pair.failures; i++) expect((await attempt(throttle, { account: 'a', address: 'x' })).allowed).toBe(true);
    expect(await attempt(throttle, { account: 'a', address: 'x' })).toMatchObject({ allowed: false, scope: 'pair' });
    // 4 + 5 failures from x: the address and the account kept them all.
    expect(await throttle.begin({ account: 'a', address: 'y' })).toMatchObject({ allowed: true, delayMs: 2000 });
    for (let i = 0; i < address.failures - 9; i++) await attempt(throttle, { account: `other-${i}`, address: 'x' });
    expect(await attempt(throttle, { account: 'b', address: 'x' })).toMatchObject({ allowed: false, scope: 'address' });
  });

  it('names the longer wait when the pair and the address are both refused', async () => {
    const limits = { ...SIGN_IN_LIMITS, address: { failures: address.failures, windowMs: 60 * 60_000 } };
    const throttle = throttleOn(t.db, { limits, now: () => EPOCH });
    for (let i = 0; i < pair.failures; i++) await attempt(throttle, { account: 'a', address: 'x' });
    for (let i = 0; i < address.failures - pair.failures; i++) await attempt(throttle, { account: `other-${i}`, address: 'x' });
    expect(await attempt(throttle, { account: 'a', address: 'x' })).toEqual({ allowed: false, scope: 'address', retryAfterSeconds: 3600, first: true });
  });

  it('opens again when the window closes, and the slowdown ends with the account window', async () => {
    let clock = EPOCH;
    const throttle = throttleOn(t.db, { now: () => clock });
    for (let i = 0; i < pair.failures; i++) await attempt(throttle, { account: 'a', address: 'x' });
    expect((await attempt(throttle, { account: 'a', address: 'x' })).allowed).toBe(false);
    clock += pair.windowMs;
    expect(await attempt(throttle, { account: 'a', address: 'x' })).toMatchObject({ allowed: true, delayMs: 0 });
  });
});
