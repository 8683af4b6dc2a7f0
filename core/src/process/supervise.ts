import type { Logger } from '../log/index.ts';

const FIRST_RETRY_MS = 1_000;
const MAX_RETRY_MS = 30_000;

/** A child the service runs (the embedded database, the embedded registry). */
export interface Child {
  /** Settles when its process has exited, for whatever reason. */
  exited: Promise<void>;
  stop(): Promise<void>;
  stopSync(): void;
}

export interface Supervised<T extends Child> {
  /** The instance running now (a new one after each restart). */
  current(): T;
  stop(): Promise<void>;
  stopSync(): void;
}

/**
 * Keeps a child running: when its process exits without `stop()` (killed, crashed, out of
 * memory) it is started again at once, and a failed start is tried again after 1 s, then 2, 4
 * … up to 30 s, every try logged. `restarted` hears of each new instance.
 */
export function supervise<T extends Child>(first: T, options: { what: string; start: (previous: T) => Promise<T>; logger: Logger; restarted?: (next: T, previous: T) => Promise<void> | void }): Supervised<T> {
  let current = first;
  let stopping = false;
  let timer: NodeJS.Timeout | undefined;

  const watch = (child: T) => {
    void child.exited.then(() => {
      if (stopping || child !== current) return;
      options.logger.error(`${options.what} stopped; starting it again`);
      restart(child, 0, FIRST_RETRY_MS);
    });
  };

  const restart = (previous: T, delayMs: number, nextDelayMs: number) => {
    timer = setTimeout(() => {
      if (stopping) return;
      options
        .start(previous)
        .then(async (next) => {
          if (stopping) return void (await next.stop());
          current = next;
          watch(next);
          await options.restarted?.(next, previous);
          options.logger.info(`${options.what} is running again`);
        })
        .catch((error: unknown) => {
          options.logger.error(`${options.what} did not start again; trying again in ${nextDelayMs / 1000} s`, { error });
          restart(previous, nextDelayMs, Math.min(nextDelayMs * 2, MAX_RETRY_MS));
        });
    }, delayMs);
    timer.unref();
  };

  watch(first);
  return {
    current: () => current,
    async stop() {
      stopping = true;
      clearTimeout(timer);
      await current.stop();
    },
    stopSync() {
      stopping = true;
      clearTimeout(timer);
      current.stopSync();
    },
  };
}
