import { DomainError } from '../errors/index.ts';

/**
 * A counting semaphore with a bounded queue and a bounded wait: at most `concurrency` holders at
 * once, at most `maxWaiting` callers queued behind them, none queued longer than `maxWaitMs`.
 * A caller that cannot get a slot is refused with RATE_LIMITED instead of piling up.
 */
export interface Slots {
  /** Runs `work` in a slot; refused (RATE_LIMITED, `busyMessage`) when the queue is full or the wait runs out. */
  run<T>(work: () => Promise<T>): Promise<T>;
  /** How many hold a slot and how many wait for one, right now. */
  load(): { active: number; waiting: number };
}

/** Calls `onTimeout` after `ms` unless the returned cancel is called first. */
export type StartTimer = (onTimeout: () => void, ms: number) => () => void;

/** Real time; a pending wait does not keep the process alive. */
const realTimer: StartTimer = (onTimeout, ms) => {
  const timer = setTimeout(onTimeout, ms);
  timer.unref?.();
  return () => clearTimeout(timer);
};

export function createSlots(options: { concurrency: number; maxWaiting: number; maxWaitMs: number; busyMessage: string; startTimer?: StartTimer }): Slots {
  const startTimer = options.startTimer ?? realTimer;
  let active = 0;
  const queue: { grant: () => void }[] = [];
  const busy = () => new DomainError('RATE_LIMITED', options.busyMessage, { details: { retryAfterSeconds: 1 } });

  const acquire = (): Promise<void> => {
    if (active < options.concurrency) {
      active++;
      return Promise.resolve();
    }
    if (queue.length >= options.maxWaiting) return Promise.reject(busy());
    return new Promise<void>((resolve, reject) => {
      const entry = {
        grant: () => {
          cancel();
          resolve();
        },
      };
      const cancel = startTimer(() => {
        const at = queue.indexOf(entry);
        if (at !== -1) queue.splice(at, 1);
        reject(busy());
      }, options.maxWaitMs);
      queue.push(entry);
    });
  };

  // The slot passes straight to the next waiter, so `active` never dips while someone waits.
  const release = () => {
    const next = queue.shift();
    if (next) next.grant();
    else active--;
  };

  return {
    async run(work) {
      await acquire();
      try {
        return await work();
      } finally {
        release();
      }
    },
    load: () => ({ active, waiting: queue.length }),
  };
}
