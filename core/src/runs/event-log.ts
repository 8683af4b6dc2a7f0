import { EventEmitter } from 'node:events';
import { isDuplicateKeyError, runEventId, TERMINAL_STATES, type Models, type TaskState } from '../db/index.ts';
import type { A2aEvent } from '../a2a/protocol.ts';

export interface StoredEvent {
  seq: number;
  event: A2aEvent;
}

const POLL_MS = 200;
const SETTLED_STATES: readonly string[] = [...TERMINAL_STATES, 'input-required'] satisfies TaskState[];

export function isFinalEvent(event: A2aEvent): boolean {
  return event.kind === 'status-update' && event.final;
}

/**
 * A run's event log, the single source of truth for its stream: every event is stored with the
 * next sequence number before anyone sees it; readers replay what they missed by sequence and
 * then follow live (notified in process, polling the run's `lastSeq` across processes).
 */
export interface AppendOptions {
  /** The caller just created the run and knows its `lastSeq`, so it need not be read. */
  knownLastSeq?: number;
  /** Executor progress to store with the run in the same update (saves a round trip). */
  progress?: Record<string, unknown>;
}

/**
 * `finished` takes a run out of the recovery working set once its terminal state is stored
 * (the run leases do it, so the holder also stops renewing); by default its lease row is deleted.
 */
export function createEventLog(models: Models, hooks: { finished?: (runId: string) => Promise<void> } = {}) {
  const { Run, RunEvent, RunLease } = models;
  const finished = hooks.finished ?? (async (runId: string) => void (await RunLease.deleteOne({ _id: runId })));
  const appended = new EventEmitter();
  appended.setMaxListeners(0);
  /** The newest sequence stored by this process per run, so a follower never waits for an append it missed. */
  const latest = new Map<string, number>();

  // Appends to one run are serialised in this process, so sequence numbers are stored in order.
  const chains = new Map<string, Promise<unknown>>();
  function append(runId: string, event: A2aEvent, options: AppendOptions = {}): Promise<number> {
    const previous = chains.get(runId) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(() => appendNow(runId, event, options));
    chains.set(runId, next);
    void next.finally(() => {
      if (chains.get(runId) === next) chains.delete(runId);
    }).catch(() => undefined);
    return next;
  }

  /**
   * Stores the event under the next free sequence number, then moves the run's `lastSeq` (a
   * hint for readers) and status. The event row comes first and its `_id` is unique, so a crash
   * at any point leaves no hole: a sequence number exists only once its event does.
   */
  async function appendNow(runId: string, event: A2aEvent, { knownLastSeq, progress }: AppendOptions): Promise<number> {
    const storedLastSeq = async () => {
      const run = await Run.findById(runId, { lastSeq: 1 }).lean();
      if (!run) throw new Error(`run ${runId} does not exist`);
      return run.lastSeq;
    };
    // While this process appends to a run it knows the newest sequence; a guess that is behind
    // (another process appended) meets a taken `_id` below and moves on.
    let seq = (latest.get(runId) ?? knownLastSeq ?? (await storedLastSeq())) + 1;
    for (let collisions = 0; ; collisions++) {
      try {
        await RunEvent.create({ _id: runEventId(runId, seq), runId, seq, kind: event.kind, payload: event, at: new Date() });
        break;
      } catch (error) {
        // Taken by an append whose run update never landed (or another process): use the next.
        if (!isDuplicateKeyError(error)) throw error;
        seq = collisions === 0 ? Math.max(seq, await storedLastSeq()) + 1 : seq + 1;
      }
    }
    const set: Record<string, unknown> = { ...(progress ? { progress } : {}) };
    if (event.kind === 'status-update' || event.kind === 'task') Object.assign(set, { status: event.status, state: event.status.state });
    const update: Record<string, unknown> = { $max: { lastSeq: seq }, ...(Object.keys(set).length ? { $set: set } : {}) };
    if (event.kind === 'artifact-update') update.$push = { artifacts: event.artifact };
    await Run.updateOne({ _id: runId }, update);
    // A finished run leaves the recovery pass's working set (run_leases) once its state is stored.
    if ((event.kind === 'status-update' || event.kind === 'task') && TERMINAL_STATES.includes(event.status.state)) await finished(runId);
    // Forgotten at a final event, so the map holds only runs still producing events.
    if (isFinalEvent(event)) latest.delete(runId);
    else if ((latest.get(runId) ?? 0) < seq) latest.set(runId, seq);
    appended.emit(runId, seq);
    return seq;
  }

  /**
   * Events after `afterSeq`, in order: one `_id` range read (`<runId>/<seq>` ids sort in sequence
   * order and end before `<runId>0`), served by the primary key on every server, so a replay
   * costs what it returns however long the log is. Reading past the run's `lastSeq` finds an
   * event whose run update was lost to a crash.
   */
  async function readAfter(runId: string, afterSeq: number): Promise<StoredEvent[]> {
    const rows = await RunEvent.find({ _id: { $gt: runEventId(runId, afterSeq), $lt: `${runId}0` } }, { seq: 1, payload: 1 }).sort({ _id: 1 }).lean();
    const out: StoredEvent[] = [];
    // Sequence numbers are dense; a gap would mean a reader raced an append, so stop before it.
    for (const row of rows) {
      if (row.seq !== (out.at(-1)?.seq ?? afterSeq) + 1) break;
      out.push({ seq: row.seq, event: row.payload as A2aEvent });
    }
    return out;
  }

  /** Waits for an append after `cursor` (in this process) or the poll interval, whichever is first. */
  function nextAppend(runId: string, cursor: number, signal?: AbortSignal): Promise<void> {
    if ((latest.get(runId) ?? 0) > cursor) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        appended.off(runId, done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, POLL_MS);
      appended.once(runId, done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  /** True when nothing more will be appended until someone acts (finished, or paused for input). */
  async function isSettled(runId: string, cursor: number): Promise<boolean> {
    const run = await Run.findById(runId, { state: 1, lastSeq: 1 }).lean();
    return !run || (run.lastSeq <= cursor && SETTLED_STATES.includes(run.state));
  }

  /**
   * Replays after `afterSeq`, then follows live until a final event, or until the run is settled
   * with nothing left to send, or the signal aborts.
   */
  async function* follow(runId: string, afterSeq: number, signal?: AbortSignal): AsyncGenerator<StoredEvent> {
    let cursor = afterSeq;
    while (!signal?.aborted) {
      const batch = await readAfter(runId, cursor);
      for (const stored of batch) {
        yield stored;
        cursor = stored.seq;
        if (isFinalEvent(stored.event)) return;
      }
      if (batch.length === 0) {
        if (await isSettled(runId, cursor)) return;
        await nextAppend(runId, cursor, signal);
      }
    }
  }

  return { append, readAfter, follow };
}

export type EventLog = ReturnType<typeof createEventLog>;
