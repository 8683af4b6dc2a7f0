import type { EventEmitter } from 'node:events';
import type { mongo } from 'mongoose';
import { readPage, runEventId } from '../db/index.ts';
import type { Logger } from '../log/index.ts';

/** How often the poll looks for the next event of every run this process waits on (ADR 0028). */
export const WATCH_POLL_MS = 200;
/** Ids per `$in` query: far below the 16 MiB command limit (an id is about 50 bytes). */
const IDS_PER_QUERY = 10_000;
/** How long an idle change stream stays open, so followers that come and go do not reopen it each time. */
const STREAM_LINGER_MS = 30_000;

/** One follower's wait for event `seq` of a run (registered before its read, so nothing stored after the read is missed). */
export interface Interest {
  /** Resolves once event `seq` exists (or a later one), or at once when `signal` aborts or the interest was cancelled. */
  wait(signal?: AbortSignal): Promise<void>;
  /** Drops the interest (the follower read something after all, or stopped). */
  cancel(): void;
}

export interface RunWatcherOptions {
  pollMs?: number;
  /** Use a change stream where the server is a replica set (default true). */
  changeStreams?: boolean;
  logger?: Logger;
}

interface Waiter {
  seq: number;
  resolve: () => void;
  /** In `wait()`: the follower has read what there was and now waits on the watcher alone. */
  parked: boolean;
}

/**
 * The one watcher of a process over the event log: followers register the next sequence number
 * they need, and the watcher wakes them when it exists. Where the server is a replica set it
 * listens to one change stream of inserts; elsewhere (FerretDB, a standalone MongoDB) one loop,
 * running only while someone waits, asks once per interval which of the awaited events exist
 * (`_id: { $in: [...] }`, `_id` only: exact-key lookups). Appends made by this process (emitted
 * on `inProcess` under the run id with the new tail) wake its followers at once. Followers of
 * one run share one entry; the database load of waiting does not grow with their number.
 */
export function createRunWatcher(collection: mongo.Collection, db: Pick<mongo.Db, 'command'>, inProcess: EventEmitter, options: RunWatcherOptions = {}) {
  const pollMs = options.pollMs ?? WATCH_POLL_MS;
  /** Waiters by run: the one entry a run has while anyone in this process waits on it. */
  const runs = new Map<string, { waiters: Set<Waiter>; local: (seq: number) => void }>();
  let timer: NodeJS.Timeout | undefined;
  let polling = false;
  /** The last look-up failed (the database is away): said once, not at every interval. */
  let failing = false;
  let stream: mongo.ChangeStream | undefined;
  /** The change stream is open on the server: every insert from now on reaches `wake`. */
  let streamLive = false;
  let streamSupport: 'unknown' | 'probing' | 'yes' | 'no' = options.changeStreams === false ? 'no' : 'unknown';
  let lingerTimer: NodeJS.Timeout | undefined;

  function wake(runId: string, seq: number): void {
    const entry = runs.get(runId);
    if (!entry) return;
    for (const waiter of entry.waiters) {
      if (waiter.seq > seq) continue;
      entry.waiters.delete(waiter);
      waiter.resolve();
    }
    release(runId);
  }

  function release(runId: string): void {
    const entry = runs.get(runId);
    if (!entry || entry.waiters.size > 0) return;
    runs.delete(runId);
    inProcess.off(runId, entry.local);
    if (runs.size === 0 && stream) {
      clearTimeout(lingerTimer);
      lingerTimer = setTimeout(closeStream, STREAM_LINGER_MS).unref();
    }
  }

  function expect(runId: string, seq: number): Interest {
    let resolve!: () => void;
    const ready = new Promise<void>((done) => (resolve = done));
    const waiter: Waiter = { seq, resolve, parked: false };
    let entry = runs.get(runId);
    if (!entry) {
      const local = (tail: number) => wake(runId, tail);
      entry = { waiters: new Set(), local };
      runs.set(runId, entry);
      inProcess.on(runId, local);
    }
    entry.waiters.add(waiter);
    clearTimeout(lingerTimer);
    start();
    const cancel = () => {
      if (runs.get(runId)?.waiters.delete(waiter)) release(runId);
      resolve();
    };
    return {
      cancel,
      async wait(signal) {
        if (signal?.aborted) return cancel();
        waiter.parked = true;
        signal?.addEventListener('abort', cancel, { once: true });
        try {
          await ready;
        } finally {
          signal?.removeEventListener('abort', cancel);
        }
      },
    };
  }

  /** Starts the poll (unless a live change stream does its work) and, once, the change-stream probe. */
  function start(): void {
    if (streamSupport === 'unknown') probeStream();
    else if (streamSupport === 'yes' && !stream) openStream();
    if (timer || polling || streamLive || runs.size === 0) return;
    timer = setTimeout(tick, pollMs).unref();
  }

  async function tick(): Promise<void> {
    timer = undefined;
    polling = true;
    try {
      await lookUp();
      failing = false;
    } catch (error) {
      // Once per outage, not five times a second: the followers simply wait until it answers again.
      if (!failing) options.logger?.warn('run watcher poll failed; retrying each interval', { error });
      failing = true;
    } finally {
      polling = false;
      start();
    }
  }

  /** One query per IDS_PER_QUERY awaited events: which of them exist now. */
  async function lookUp(): Promise<void> {
    const wanted: string[] = [];
    for (const [runId, entry] of runs) for (const seq of new Set([...entry.waiters].map((waiter) => waiter.seq))) wanted.push(runEventId(runId, seq));
    for (let at = 0; at < wanted.length; at += IDS_PER_QUERY) {
      const ids = wanted.slice(at, at + IDS_PER_QUERY);
      const rows = await readPage<{ _id: string }>(collection, { _id: { $in: ids } } as never, { sort: { _id: 1 }, limit: ids.length, projection: { _id: 1 } });
      for (const row of rows) wakeAt(row._id);
    }
  }

  function wakeAt(id: unknown): void {
    if (typeof id !== 'string') return;
    const cut = id.lastIndexOf('/');
    if (cut > 0) wake(id.slice(0, cut), Number(id.slice(cut + 1)));
  }

  /** A replica set (`setName`) or a sharded cluster's router (`isdbgrid`) offers change streams; FerretDB and a standalone server do not. */
  function probeStream(): void {
    streamSupport = 'probing';
    db.command({ hello: 1 }).then(
      (hello) => {
        streamSupport = hello.setName || hello.msg === 'isdbgrid' ? 'yes' : 'no';
        if (streamSupport === 'yes' && runs.size > 0) openStream();
      },
      () => (streamSupport = 'unknown'),
    );
  }

  // Not verified against a replica set on the machine this was written on (ADR 0028): kept small, and any error falls back to the poll.
  function openStream(): void {
    const changes = collection.watch([{ $match: { operationType: 'insert' } }, { $project: { documentKey: 1 } }]);
    stream = changes;
    changes.on('change', (change) => wakeAt((change as { documentKey?: { _id?: unknown } }).documentKey?._id));
    // The first resume token comes with the server's answer to the stream's aggregate: from then on no insert is missed,
    // and one look-up covers what was stored before it.
    changes.once('resumeTokenChanged', () => {
      if (stream !== changes) return;
      streamLive = true;
      clearTimeout(timer);
      timer = undefined;
      void lookUp().catch((error: unknown) => options.logger?.warn('run watcher look-up failed', { error }));
    });
    changes.on('error', (error) => {
      if (stream !== changes) return;
      options.logger?.warn('run watcher change stream failed; polling the event log instead', { error });
      streamSupport = 'no';
      closeStream();
      start();
    });
  }

  function closeStream(): void {
    const changes = stream;
    stream = undefined;
    streamLive = false;
    void changes?.close().catch(() => undefined);
  }

  return {
    expect,
    /** Whether a live change stream serves the followers (then only inserts from now on wake them; the poll finds what exists). */
    streaming: () => streamLive,
    /** What waits now, for tests and metrics: runs with an entry, followers parked in `wait()`, whether a change stream serves them. */
    waiting: () => ({ runs: runs.size, followers: [...runs.values()].reduce((sum, entry) => sum + [...entry.waiters].filter((waiter) => waiter.parked).length, 0), changeStream: streamLive }),
  };
}

export type RunWatcher = ReturnType<typeof createRunWatcher>;
