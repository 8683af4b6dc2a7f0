import { EventEmitter } from 'node:events';
import { isDuplicateKeyError, runEndId, runEventId, runEventsAfter, runLeaseId, runListId, runOwnerDigest, TERMINAL_STATES, type Models, type TaskState } from '../db/index.ts';
import { DomainError } from '../errors/index.ts';
import type { A2aEvent, Message } from '../a2a/protocol.ts';
import { fromStored, storedProgress, toStored } from './stored-json.ts';

export interface StoredEvent {
  seq: number;
  event: A2aEvent;
}

const POLL_MS = 200;
const SETTLED_STATES: readonly string[] = [...TERMINAL_STATES, 'input-required'] satisfies TaskState[];

export function isFinalEvent(event: A2aEvent): boolean {
  return event.kind === 'status-update' && event.final;
}

/** A status that ends the run for good (a pause for input is final for its stream, not for the run). */
export function isEndEvent(event: A2aEvent): boolean {
  return event.kind === 'status-update' && event.final && TERMINAL_STATES.includes(event.status.state);
}

/** The run ended before this append (another process canceled or finished it). */
export class RunEndedError extends DomainError {
  override name = 'RunEndedError';
  constructor(runId: string) {
    super('CONFLICT', `Run ${runId} has already ended`);
  }
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
  /** Messages for the task's history besides the status messages of these events (a caller's answer). */
  history?: Message[];
  /** The run owner's digest (`runOwnerDigest`), when the caller knows it; else read once per run. */
  owner?: string;
}

/**
 * `finished` takes a run out of the recovery working set once its terminal state is stored
 * (the run leases do it, so the holder also stops renewing); by default its lease row is deleted.
 */
export function createEventLog(models: Models, hooks: { finished?: (runId: string) => Promise<void> } = {}) {
  const { Run, RunEvent, RunLease } = models;
  const finished = hooks.finished ?? (async (runId: string) => void (await RunLease.deleteOne({ _id: runLeaseId(runId) })));
  const appended = new EventEmitter();
  appended.setMaxListeners(0);
  /** The newest sequence stored by this process per run, so a follower never waits for an append it missed. */
  const latest = new Map<string, number>();
  /** Owner digests of runs this process appends to, for their task-list rows; forgotten with `latest`. */
  const owners = new Map<string, string>();
  /** The task-list row this process wrote last per run: replaced (deleted) when the next status is stored. */
  const listRows = new Map<string, string>();

  /**
   * Drops a run's superseded task-list row, in the background and by `_id` alone (a delete the
   * embedded FerretDB serves from its index; a delete by `$in` would scan the collection).
   */
  function dropListRow(rowId: string | undefined): void {
    if (rowId) void RunEvent.collection.deleteOne({ _id: rowId as never }).catch(() => undefined);
  }

  // Appends to one run are serialised in this process, so sequence numbers are stored in order.
  const chains = new Map<string, Promise<unknown>>();
  function append(runId: string, event: A2aEvent, options: AppendOptions = {}): Promise<number> {
    return appendAll(runId, [event], options);
  }

  /** Appends events produced together in one insert and one run update; resolves to the last sequence number. */
  function appendAll(runId: string, events: A2aEvent[], options: AppendOptions = {}): Promise<number> {
    const previous = chains.get(runId) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(() => appendNow(runId, events, options));
    chains.set(runId, next);
    void next.finally(() => {
      if (chains.get(runId) === next) chains.delete(runId);
    }).catch(() => undefined);
    return next;
  }

  /**
   * Stores the events under the next free sequence numbers, then moves the run's `lastSeq` (a
   * hint for readers), status and artifacts. The event rows come first and their `_id`s are
   * unique, so a crash at any point leaves no hole: a sequence number exists only once its event does.
   *
   * A run ends once: a terminal event is inserted behind the run's end row (`~f/<runId>`) in the
   * same ordered insert, so a second end (a cancel racing a completion in another process) meets
   * the taken `_id` and nothing of it is stored. Anything else appended after the end is refused
   * by the run update (it matches unfinished runs only) and its rows are taken back.
   */
  async function appendNow(runId: string, events: A2aEvent[], { knownLastSeq, progress, history = [], owner }: AppendOptions): Promise<number> {
    const storedLastSeq = async () => {
      const run = await Run.findById(runId, { lastSeq: 1, actorType: 1, actorId: 1 }).lean();
      if (!run) throw new Error(`run ${runId} does not exist`);
      owners.set(runId, runOwnerDigest(run.actorType, run.actorId));
      return run.lastSeq;
    };
    if (owner) owners.set(runId, owner);
    const changesStatus = events.some((event) => event.kind === 'status-update' || event.kind === 'task');
    // A status change also writes the run's task-list row, which names its owner.
    if (changesStatus && !owners.has(runId)) await storedLastSeq();
    // While this process appends to a run it knows the newest sequence; a guess that is behind
    // (another process appended) meets a taken `_id` below and moves on.
    let seq = (latest.get(runId) ?? knownLastSeq ?? (await storedLastSeq())) + 1;
    /** The `_id`s stored by this append, to take back if the run turns out to have ended. */
    const written: string[] = [];
    const ends = events.some(isEndEvent);
    let claimEnd = ends;
    let pending = events;
    for (let collisions = 0; pending.length > 0; ) {
      const endRow = claimEnd ? [{ _id: runEndId(runId), runId, at: new Date() }] : [];
      try {
        const rows = pending.flatMap((event, i) => (event.kind === 'status-update' || event.kind === 'task' ? [listRow(owners.get(runId)!, runId, seq + i, event.status, event.contextId)] : []));
        await RunEvent.collection.insertMany([...endRow, ...pending.map((event, i) => eventDocument(runId, seq + i, event)), ...rows] as never[], { ordered: true });
        written.push(...rows.map((row) => row._id));
        for (const row of rows) {
          dropListRow(listRows.get(runId));
          listRows.set(runId, row._id);
        }
        written.push(...pending.map((_, i) => runEventId(runId, seq + i)));
        seq += pending.length;
        pending = [];
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw error;
        let stored = (error as { writeErrors?: { index: number }[] }).writeErrors?.[0]?.index ?? 0;
        if (claimEnd) {
          if (stored === 0) throw new RunEndedError(runId);
          claimEnd = false;
          stored -= 1;
        }
        // Taken by an append whose run update never landed (or another process): the events
        // before it are stored; the rest go on from the next free number.
        const taken = seq + stored;
        written.push(...pending.slice(0, stored).map((_, i) => runEventId(runId, seq + i)));
        pending = pending.slice(stored);
        seq = collisions++ === 0 ? Math.max(taken, await storedLastSeq()) + 1 : taken + 1;
      }
    }
    const lastSeq = seq - 1;
    const statuses = events.filter((event) => event.kind === 'status-update' || event.kind === 'task');
    const status = statuses.at(-1)?.status;
    const artifacts = events.flatMap((event) => (event.kind === 'artifact-update' ? [event.artifact] : []));
    const messages = [...history, ...statuses.flatMap((event) => (event.status.message ? [event.status.message] : []))];
    // Written as stored (no mongoose casting on this hot path), so `updatedAt` is set here.
    const set: Record<string, unknown> = { ...(progress ? { progress: storedProgress(progress) } : {}), ...(status ? { status: toStored(status), state: status.state } : {}), updatedAt: new Date() };
    const update: Record<string, unknown> = { $max: { lastSeq }, $set: set };
    const push: Record<string, unknown> = {};
    if (artifacts.length) push.artifacts = { $each: artifacts.map(toStored) };
    if (messages.length) push.history = { $each: messages.map(toStored) };
    if (artifacts.length || messages.length) update.$push = push;
    const updated = await Run.collection.updateOne(ends ? { _id: runId as never } : { _id: runId as never, state: { $nin: TERMINAL_STATES } }, update);
    if (!ends && updated.matchedCount === 0) {
      // The run ended meanwhile: its stream stopped at the end; take these rows back.
      await RunEvent.collection.deleteMany({ _id: { $in: written } as never });
      throw new RunEndedError(runId);
    }
    // A finished run leaves the recovery pass's working set once its state is stored.
    if (status && TERMINAL_STATES.includes(status.state)) await finished(runId);
    // Forgotten at a final event, so the map holds only runs still producing events.
    if (events.some(isFinalEvent)) {
      latest.delete(runId);
      owners.delete(runId);
      listRows.delete(runId);
    }
    else if ((latest.get(runId) ?? 0) < lastSeq) latest.set(runId, lastSeq);
    appended.emit(runId, lastSeq);
    return lastSeq;
  }

  /**
   * Events after `afterSeq`, in order: one `_id` range read (`~e/<runId>/<seq>` ids sort in
   * sequence order), served by the primary key on every server, so a replay
   * costs what it returns however long the log is. Reading past the run's `lastSeq` finds an
   * event whose run update was lost to a crash.
   */
  async function readAfter(runId: string, afterSeq: number): Promise<StoredEvent[]> {
    const rows = await RunEvent.find({ _id: runEventsAfter(runId, afterSeq) }, { seq: 1, payload: 1 }).sort({ _id: 1 }).lean();
    const out: StoredEvent[] = [];
    // Sequence numbers are dense; a gap would mean a reader raced an append, so stop before it.
    for (const row of rows) {
      if (row.seq !== (out.at(-1)?.seq ?? afterSeq) + 1) break;
      out.push({ seq: row.seq, event: fromStored<A2aEvent>(row.payload) });
    }
    return out;
  }

  /** The task-list row of a status stored as event `seq` (run-keys.ts, `runListId`): what `ListTasks` filters on. */
  function listRow(owner: string, runId: string, seq: number, status: { state: TaskState; timestamp: string }, contextId: string) {
    const at = Date.parse(status.timestamp) || Date.now();
    return { _id: runListId(owner, at, runId, seq), runId, contextId, state: status.state };
  }

  /** The stored form of event `seq` of `runId`, for a caller that writes it with other documents. */
  function eventDocument(runId: string, seq: number, event: A2aEvent) {
    return { _id: runEventId(runId, seq), runId, seq, kind: event.kind, payload: toStored(event), at: new Date() };
  }

  /** Tells followers in this process that `seq` of `runId` was stored by such a caller (and which task-list row it wrote). */
  function stored(runId: string, seq: number, listRowId?: string): void {
    if (listRowId) listRows.set(runId, listRowId);
    if ((latest.get(runId) ?? 0) < seq) latest.set(runId, seq);
    appended.emit(runId, seq);
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

  return { append, appendAll, readAfter, follow, eventDocument, listRow, stored };
}

export type EventLog = ReturnType<typeof createEventLog>;
