import { EventEmitter } from 'node:events';
import { createInsertBatcher, createUpdateBatcher, isDuplicateKeyError, readPage, runEventId, runEventsAfter, type Models } from '../db/index.ts';
import { DomainError } from '../errors/index.ts';
import type { Logger } from '../log/index.ts';
import { isFinalEvent, isSettled, isTerminal, isVisible, stateAfter, type RunEvent, type RunState, type RunStatus, type RunUsage } from './model.ts';
import { createRunWatcher, type RunWatcherOptions } from './run-watcher.ts';
import { fromStored, toStored } from './stored-json.ts';
import { recordRunAppend } from '../telemetry/index.ts';

export interface StoredEvent {
  seq: number;
  event: RunEvent;
  /** The run's state after this event. */
  state: RunState;
  /** The lease generation this event was written under. */
  generation: number;
}

/** Where a run's log ends: its last sequence number, the state it leaves and the generation in force. */
export interface Tail {
  seq: number;
  state: RunState;
  generation: number;
}

/** A run with no event yet (its first insert has not landed). */
const EMPTY_TAIL: Tail = { seq: 0, state: 'submitted', generation: 0 };
/** How often a follower whose cursor is past its log's end reads the run's tail. */
const PAST_END_CHECK_MS = 1_000;
/** Events read per query while replaying or following. */
const READ_BATCH = 500;

/** The run ended before this append (another process canceled or finished it). */
export class RunEndedError extends DomainError {
  override name = 'RunEndedError';
  constructor(runId: string, readonly state: RunState) {
    super('CONFLICT', `Run ${runId} has already ended (${state})`);
  }
}

/** Another worker took the run over: this one's lease generation is behind the log's. */
export class LeaseLostError extends DomainError {
  override name = 'LeaseLostError';
  constructor(runId: string, readonly generation: number) {
    super('CONFLICT', `Run ${runId} is worked on elsewhere now (lease generation ${generation})`);
  }
}

export interface AppendOptions {
  /** The lease generation this writer holds: the append is refused once the log has moved past it. */
  fence?: number;
  /** Starts this lease generation with these events (a takeover, an answer); the log's must be lower. */
  generation?: number;
  /** Refuses the append (by throwing) unless the log ends as this writer expects; checked again after every collision. */
  expect?: (tail: Tail) => void;
  /** The tail as the caller knows it (it just wrote it), so it need not be read. */
  knownTail?: Tail;
  /** The run's LLM usage once these events are stored (its steps' calls summed), for the run head. */
  usage?: RunUsage;
}

/**
 * A run's event log: the one record of what happened to a run. Every change (a status, an
 * artifact, a finished step, an answer, a takeover) is an event, stored under the next sequence
 * number before anyone sees it. An append inserts at the number after the tail its writer has
 * read, and the unique `_id` lets exactly one writer have each number: a writer that loses reads
 * what was stored first and decides again (the run ended: stop; another worker's generation:
 * stop; the pause it answers was answered: refuse), so nothing is ever taken back and no number
 * is ever skipped. The run head is moved forward after each status event (a projection for
 * listings; readers that need the truth fold the log).
 *
 * Group commit (ADR 0029): the inserts of appends to different runs made while the previous
 * insert is on its way go out together, as one ordered insert, and so do the head updates, as
 * one bulk write. Nothing else changes: each append still waits for its own events to be stored
 * before anyone is told, appends to one run are still serialised here, and a collision of one
 * run in a batch is that run's alone (the runs after it in the batch are sent again).
 */
export function createEventLog(models: Models, hooks: { finished?: (runId: string, usage?: RunUsage) => Promise<void>; logger?: Logger; watch?: RunWatcherOptions } = {}) {
  const { Run, RunEvent } = models;
  const appended = new EventEmitter();
  appended.setMaxListeners(0);
  /** The events this process stored, per run, for its own followers (who then need not read them back). */
  const storedHere = new EventEmitter();
  storedHere.setMaxListeners(0);
  /** This process's one watcher over the log: followers that wait are woken by it, and query nothing themselves. */
  const watcher = createRunWatcher(RunEvent.collection, { command: (command) => RunEvent.db.db!.command(command) }, appended, { ...hooks.watch, ...(hooks.logger ? { logger: hooks.logger } : {}) });
  /** The tail this process last wrote per run, so its next append need not read it; dropped at a final event. */
  const tails = new Map<string, Tail>();
  /** Appends to one run are serialised in this process, so this process never collides with itself. */
  const chains = new Map<string, Promise<unknown>>();
  /** Inserts of events and updates of run heads, each gathered into one command per batch (group commit). */
  const eventInserts = createInsertBatcher(RunEvent.collection);
  const headUpdates = createUpdateBatcher(Run.collection);

  function eventDocument(runId: string, seq: number, event: RunEvent, state: RunState, generation: number) {
    return { _id: runEventId(runId, seq), runId, seq, type: event.type, event: toStored(event), state, generation, at: new Date() };
  }

  function toStoredEvent(row: { seq: number; event: unknown; state: string; generation: number }): StoredEvent {
    return { seq: row.seq, event: fromStored<RunEvent>(row.event), state: row.state as RunState, generation: row.generation };
  }

  /** The last event's sequence, state and generation: one backwards `_id` range read with limit 1. */
  async function readTail(runId: string, afterSeq = 0): Promise<Tail> {
    const [row] = await readPage(RunEvent.collection, { _id: runEventsAfter(runId, afterSeq) as never }, { sort: { _id: -1 }, limit: 1, projection: { seq: 1, state: 1, generation: 1 } });
    return row ? { seq: row.seq as number, state: row.state as RunState, generation: row.generation as number } : EMPTY_TAIL;
  }

  function append(runId: string, event: RunEvent, options: AppendOptions = {}): Promise<Tail> {
    return appendAll(runId, [event], options);
  }

  /** Appends events produced together (one insert); resolves to the tail after them. */
  function appendAll(runId: string, events: RunEvent[], options: AppendOptions = {}): Promise<Tail> {
    const previous = chains.get(runId) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(() => appendNow(runId, events, options));
    chains.set(runId, next);
    void next.finally(() => {
      if (chains.get(runId) === next) chains.delete(runId);
    }).catch(() => undefined);
    return next;
  }

  async function appendNow(runId: string, events: RunEvent[], options: AppendOptions): Promise<Tail> {
    let tail = options.knownTail ?? tails.get(runId) ?? (await readTail(runId));
    let pending = events;
    let fence = options.fence;
    let generation = options.generation;
    /** The sequence number each event got, in order (an append can land in two parts around another writer's event). */
    const seqs: number[] = [];
    /** What this append stored, as followers read it. */
    const storedEvents: StoredEvent[] = [];
    let stored = 0;
    for (;;) {
      if (isTerminal(tail.state)) throw new RunEndedError(runId, tail.state);
      // The precondition is the writer's reason to append at all: it holds for the whole append once its first event is in.
      if (stored === 0) options.expect?.(tail);
      if (fence !== undefined && tail.generation !== fence) throw new LeaseLostError(runId, tail.generation);
      if (generation !== undefined && tail.generation >= generation) throw new LeaseLostError(runId, tail.generation);
      const writeGeneration = generation ?? tail.generation;
      let state = tail.state;
      const documents = pending.map((event, i) => {
        state = stateAfter(state, event);
        return eventDocument(runId, tail.seq + 1 + i, event, state, writeGeneration);
      });
      try {
        await eventInserts.insert(documents);
        seqs.push(...documents.map((document) => document.seq));
        storedEvents.push(...documents.map((document) => ({ seq: document.seq, event: fromStored<RunEvent>(document.event), state: document.state, generation: writeGeneration })));
        tail = { seq: tail.seq + documents.length, state, generation: writeGeneration };
        break;
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw error;
        const inserted = (error as { writeErrors?: { index: number }[] }).writeErrors?.[0]?.index ?? (error as { index?: number }).index ?? 0;
        if (inserted > 0) {
          const last = documents[inserted - 1]!;
          seqs.push(...documents.slice(0, inserted).map((document) => document.seq));
          storedEvents.push(...documents.slice(0, inserted).map((document) => ({ seq: document.seq, event: fromStored<RunEvent>(document.event), state: document.state, generation: writeGeneration })));
          tail = { seq: last.seq, state: last.state, generation: writeGeneration };
          pending = pending.slice(inserted);
          stored += inserted;
          // The rest belongs to the generation the first part started.
          fence = writeGeneration;
          generation = undefined;
        }
        // Someone stored the next number first: read where the log ends now and decide again.
        tail = await readTail(runId, tail.seq);
      }
    }
    if (events.some(isFinalEvent)) tails.delete(runId);
    else tails.set(runId, tail);
    await project(runId, events, seqs, options.usage);
    // Only the writer whose insert stored the run's end gets here with a terminal tail: the end is told once.
    if (isTerminal(tail.state)) await hooks.finished?.(runId, options.usage);
    storedHere.emit(runId, storedEvents);
    appended.emit(runId, tail.seq);
    recordRunAppend(events, isTerminal(tail.state) ? tail.state : null);
    return tail;
  }

  /**
   * Moves the run head to the latest status among `events` (stored under `seqs`). The filter
   * keeps the head from going back when two processes project at once; a projection lost to a
   * crash (or, on FerretDB 1.x, to a concurrent write) is made good by the next reader that
   * folds the log (run-store.ts). `usage` (the run's after these events) goes with it; stored
   * steps with no status among them set only the usage, under the same filter, so it too never
   * goes back past a later status's.
   */
  async function project(runId: string, events: RunEvent[], seqs: number[], usage?: RunUsage): Promise<void> {
    const index = events.findLastIndex((event) => event.type === 'status' || event.type === 'created');
    const failed = (seq: number) => (error: unknown) => hooks.logger?.warn('run head not moved forward; the next reader of the run does it', { runId, seq, error });
    if (index < 0) {
      const step = events.findLastIndex((event) => event.type === 'step');
      if (step < 0 || !usage) return;
      const seq = seqs[step]!;
      await headUpdates.updateOne({ _id: runId, lastSeq: { $lt: seq } }, { $set: { usage } }).catch(failed(seq));
      return;
    }
    const event = events[index] as Extract<RunEvent, { status: RunStatus }>;
    const seq = seqs[index]!;
    await projectStatus(runId, seq, event.status, usage).catch(failed(seq));
  }

  async function projectStatus(runId: string, seq: number, status: RunStatus, usage?: RunUsage): Promise<void> {
    const at = Date.parse(status.timestamp) || Date.now();
    await headUpdates.updateOne({ _id: runId, lastSeq: { $lt: seq } }, { $set: { lastSeq: seq, state: status.state, status: toStored(status), updatedAt: new Date(at), listKey: listKeyOf(at, runId), ...(usage ? { usage } : {}) } });
  }

  /** Events after `afterSeq`, in order, at most `limit` (default: all): `_id` range reads of READ_BATCH each. */
  async function readAfter(runId: string, afterSeq: number, limit = Number.POSITIVE_INFINITY): Promise<StoredEvent[]> {
    const out: StoredEvent[] = [];
    for (;;) {
      const from = out.at(-1)?.seq ?? afterSeq;
      const want = Math.min(READ_BATCH, limit - out.length);
      const rows = await readPage<{ seq: number; event: unknown; state: string; generation: number }>(RunEvent.collection, { _id: runEventsAfter(runId, from) as never }, { sort: { _id: 1 }, limit: want, projection: { seq: 1, event: 1, state: 1, generation: 1 } });
      for (const row of rows) {
        // Numbers are dense (nothing is ever deleted below the tail); a gap would be a bug, so stop before it.
        if (row.seq !== (out.at(-1)?.seq ?? afterSeq) + 1) return out;
        out.push(toStoredEvent(row));
      }
      if (rows.length < want || out.length >= limit) return out;
    }
  }

  /** Tells this process's followers that the caller stored events up to `tail` itself (a new run). */
  function stored(runId: string, tail: Tail): void {
    tails.set(runId, tail);
    appended.emit(runId, tail.seq);
  }

  /**
   * The events a caller sees after `afterSeq`, then live ones, until a final event (a pause or an
   * end), or until the run is settled with nothing left to send, or the signal aborts. The state
   * comes from the events themselves (each row carries it), so a follower ends as soon as the
   * log does, whatever the run head says.
   */
  async function* follow(runId: string, afterSeq: number, signal?: AbortSignal, options: { lastSeen?: StoredEvent } = {}): AsyncGenerator<StoredEvent> {
    let cursor = afterSeq;
    let state: RunState | null = null;
    // Reading from one before the cursor tells the state the follower starts in.
    let from = Math.max(0, afterSeq - 1);
    /** Whether the log has reached the cursor: until it has, only its tail tells where the run stands. */
    let reached = afterSeq === 0;
    /** Events this process stored for the run since this follower began, as stored: those right after the cursor are sent without reading them back. */
    let buffered: StoredEvent[] = [];
    const onStored = (events: StoredEvent[]) => {
      buffered.push(...events);
      // A consumer far behind reads them from the log instead.
      if (buffered.length > READ_BATCH) buffered = [];
    };
    /** Moves the cursor over `events` (in order), yielding the visible ones after it; true once a final event went out. */
    function* pass(events: StoredEvent[]): Generator<StoredEvent, boolean> {
      for (const stored of events) {
        state = stored.state;
        if (stored.seq <= cursor) continue;
        cursor = stored.seq;
        if (!isVisible(stored.event)) continue;
        yield stored;
        if (isFinalEvent(stored.event)) return true;
      }
      return false;
    }
    storedHere.on(runId, onStored);
    /**
     * Whether the next wait may go without a read before it: the follower has everything up to the
     * cursor from this process (what a new run's creation stored, handed over as `lastSeen`, or
     * its own appends from the buffer), this process's tail is the cursor, and the watcher polls.
     * Then an event another process stored meanwhile exists already, and the poll's look-up finds
     * what exists, not only what is new; after a wake-up the buffer does not explain, it reads. A
     * live change stream reports only inserts after it was asked, so there the read stays.
     */
    let waitUnread = options.lastSeen !== undefined && options.lastSeen.seq === afterSeq && afterSeq > 0;
    if (waitUnread) {
      state = options.lastSeen!.state;
      reached = true;
    }
    try {
      while (!signal?.aborted) {
        buffered = buffered.filter((stored) => stored.seq > cursor);
        if (buffered[0]?.seq === cursor + 1) {
          reached = true;
          // The dense run of them right after the cursor; the rest wait for their turn.
          let dense = 1;
          while (buffered[dense]?.seq === cursor + 1 + dense) dense++;
          if (yield* pass(buffered.splice(0, dense))) return;
          from = cursor;
          waitUnread = true;
          continue;
        }
        // Interest before the read: an event stored while the read is under way still wakes this follower.
        const interest = watcher.expect(runId, cursor + 1);
        try {
          if (waitUnread && state !== null && tails.get(runId)?.seq === cursor && !watcher.streaming()) {
            waitUnread = false;
            if (isSettled(state)) return;
            await interest.wait(signal);
            continue;
          }
          waitUnread = false;
          const batch = await readAfter(runId, from, READ_BATCH);
          if (batch.length > 0) reached = true;
          if (batch.some((stored) => stored.seq > cursor)) {
            // Not waiting after all: the interest would only keep the watcher busy while the consumer takes these.
            interest.cancel();
            if (yield* pass(batch)) return;
            from = cursor;
            continue;
          }
          for (const stored of batch) state = stored.state;
          from = cursor;
          if (!reached) {
            // A cursor past the log's end (a made-up Last-Event-ID): no event it waits for will come,
            // so the tail tells where the run stands, read again every PAST_END_CHECK_MS until it settles.
            if (isSettled((await readTail(runId)).state)) return;
            await Promise.race([interest.wait(signal), new Promise((resolve) => setTimeout(resolve, PAST_END_CHECK_MS).unref())]);
            continue;
          }
          if (state !== null && isSettled(state)) return;
          await interest.wait(signal);
        } finally {
          interest.cancel();
        }
      }
    } finally {
      storedHere.off(runId, onStored);
    }
  }

  return { append, appendAll, readAfter, readTail, follow, eventDocument, stored, projectStatus, watching: watcher.waiting, insertEvents: eventInserts.insert };
}

/** What listings sort and page on: the status time (ms, 13 digits), then the run id, as one string. */
export function listKeyOf(at: number, runId: string): string {
  return `${String(Math.max(0, Math.trunc(at))).padStart(13, '0')}/${runId}`;
}

export type EventLog = ReturnType<typeof createEventLog>;
