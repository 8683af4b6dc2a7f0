import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestDatabase } from '../testing/index.ts';
import { connectDatabase, createWindowCounters, type Database } from './index.ts';

const t = useTestDatabase();
let second: Database;
beforeAll(async () => {
  second = await connectDatabase(t.uri);
});
afterAll(() => second?.close());

describe('window counters shared over connections (ADR 0030)', () => {
  it('grants exactly the limit to concurrent takers on two connections, round after round', async () => {
    // The same race with `$inc` upserts lost increments on FerretDB 1.24 in 11 of 20 rounds.
    const counters = [createWindowCounters(t.db.models), createWindowCounters(second.models)];
    for (let round = 0; round < 10; round++) {
      const key = `race-${round}`;
      const takes = Array.from({ length: 10 }, async (_, i) => {
        const own = counters[i % 2]!;
        return own.take(await own.window(key, 60_000), 4);
      });
      const granted = (await Promise.all(takes)).filter(Boolean);
      expect(granted).toHaveLength(4);
      expect(await counters[0]!.held(await counters[0]!.window(key, 60_000))).toBe(4);
    }
  });

  it('counts unlimited takes without losing one, and a release counts once', async () => {
    const counters = [createWindowCounters(t.db.models), createWindowCounters(second.models)];
    const window = await counters[0]!.window('unlimited', 60_000);
    const slots = await Promise.all(Array.from({ length: 10 }, (_, i) => counters[i % 2]!.take(window)));
    expect(await counters[1]!.held(window)).toBe(10);
    await Promise.all([counters[0]!.release(window, [slots[0]!.slot]), counters[1]!.release(window, [slots[0]!.slot, slots[1]!.slot])]);
    expect(await counters[0]!.held(window)).toBe(8);
  });

  it('opens a key\'s next window when its first closes, and sweeps closed windows', async () => {
    // Now, not near 0: a server with a TTL index deletes rows whose expiry is long past within a minute.
    let clock = Date.now();
    const counters = createWindowCounters(t.db.models, { now: () => clock });
    const first = await counters.window('windowed', 60_000);
    expect(await counters.take(first, 1)).not.toBeNull();
    clock += 30_000;
    expect(await counters.window('windowed', 60_000)).toEqual(first);
    expect(await counters.take(first, 1)).toBeNull();
    clock += 30_000;
    const next = await counters.window('windowed', 60_000);
    expect(next).toMatchObject({ start: clock, endsAt: clock + 60_000 });
    expect(next.id).not.toBe(first.id);
    expect(await counters.take(next, 1)).not.toBeNull();
    expect(await counters.forgetExpired()).toBeGreaterThanOrEqual(1);
    expect(await counters.held(first)).toBe(0);
    expect(await counters.held(next)).toBe(1);
  });
});
