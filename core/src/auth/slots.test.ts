import { describe, expect, it } from 'vitest';
import { createSlots, type StartTimer } from './slots.ts';

/** A bounded-wait clock that fires only when the test says so. */
function manualTimers() {
  const armed = new Set<{ ms: number; fire: () => void }>();
  const start: StartTimer = (fire, ms) => {
    const timer = { ms, fire };
    armed.add(timer);
    return () => armed.delete(timer);
  };
  return {
    start,
    armed: () => [...armed].map((timer) => timer.ms),
    fireOldest() {
      const [timer] = armed;
      if (!timer) throw new Error('no timer armed');
      armed.delete(timer);
      timer.fire();
    },
  };
}

/** Work the test finishes by hand; `started` tells which pieces hold a slot. */
function controllableWork() {
  const started: string[] = [];
  const finish = new Map<string, () => void>();
  let running = 0;
  let peak = 0;
  const work = (name: string) => () =>
    new Promise<string>((resolve) => {
      started.push(name);
      peak = Math.max(peak, ++running);
      finish.set(name, () => {
        running--;
        resolve(name);
      });
    });
  return { work, started, finish: (name: string) => finish.get(name)!(), peak: () => peak };
}

/** Lets every promise callback already due run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('slots (issue 11, item 8; issue 25, part 7)', () => {
  it('holds at most `concurrency` at once and hands each freed slot to the longest waiter', async () => {
    const timers = manualTimers();
    const slots = createSlots({ concurrency: 2, maxWaiting: 5, maxWaitMs: 10_000, busyMessage: 'busy', startTimer: timers.start });
    const w = controllableWork();
    const runs = ['a', 'b', 'c', 'd', 'e'].map((name) => slots.run(w.work(name)));
    await settle();
    expect(w.started).toEqual(['a', 'b']);
    expect(slots.load()).toEqual({ active: 2, waiting: 3 });
    expect(timers.armed()).toEqual([10_000, 10_000, 10_000]);

    w.finish('b');
    await settle();
    expect(w.started).toEqual(['a', 'b', 'c']);
    expect(slots.load()).toEqual({ active: 2, waiting: 2 });
    expect(timers.armed()).toHaveLength(2);

    for (const name of ['a', 'c', 'd', 'e']) {
      w.finish(name);
      await settle();
    }
    expect(await Promise.all(runs)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(w.peak()).toBe(2);
    expect(slots.load()).toEqual({ active: 0, waiting: 0 });
    expect(timers.armed()).toEqual([]);
  });

  it('refuses a caller past the full queue at once, with RATE_LIMITED', async () => {
    const timers = manualTimers();
    const slots = createSlots({ concurrency: 1, maxWaiting: 2, maxWaitMs: 10_000, busyMessage: 'busy', startTimer: timers.start });
    const w = controllableWork();
    const held = ['a', 'b', 'c'].map((name) => slots.run(w.work(name)));
    // Nothing has finished and no timer has fired: only the full queue can refuse it.
    await expect(slots.run(w.work('d'))).rejects.toMatchObject({ code: 'RATE_LIMITED', message: 'busy', details: { retryAfterSeconds: 1 } });
    expect(slots.load()).toEqual({ active: 1, waiting: 2 });
    for (const name of ['a', 'b', 'c']) {
      w.finish(name);
      await settle();
    }
    await Promise.all(held);
    expect(w.started).toEqual(['a', 'b', 'c']);
  });

  it('refuses a waiter whose bounded wait runs out and passes the slot over it', async () => {
    const timers = manualTimers();
    const slots = createSlots({ concurrency: 1, maxWaiting: 5, maxWaitMs: 20, busyMessage: 'busy', startTimer: timers.start });
    const w = controllableWork();
    const holder = slots.run(w.work('holder'));
    const late = slots.run(w.work('late'));
    const next = slots.run(w.work('next'));
    expect(timers.armed()).toEqual([20, 20]);
    timers.fireOldest();
    await expect(late).rejects.toMatchObject({ code: 'RATE_LIMITED', message: 'busy' });
    expect(slots.load()).toEqual({ active: 1, waiting: 1 });

    w.finish('holder');
    await holder;
    await settle();
    expect(w.started).toEqual(['holder', 'next']);
    w.finish('next');
    await expect(next).resolves.toBe('next');
    expect(slots.load()).toEqual({ active: 0, waiting: 0 });
  });

  it('frees the slot when the work fails', async () => {
    const slots = createSlots({ concurrency: 1, maxWaiting: 0, maxWaitMs: 20, busyMessage: 'busy', startTimer: manualTimers().start });
    await expect(slots.run(() => Promise.reject(new Error('derivation failed')))).rejects.toThrow('derivation failed');
    expect(slots.load()).toEqual({ active: 0, waiting: 0 });
    await expect(slots.run(async () => 'now')).resolves.toBe('now');
  });
});
