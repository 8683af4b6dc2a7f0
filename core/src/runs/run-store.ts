import { createHash, randomUUID } from 'node:crypto';
import type { Actor } from '../auth/index.ts';
import { uuidv7 } from '../ids/index.ts';
import { isDuplicateKeyError, parseRunListId, RUN_HEADS_END, runIdempotencyId, runListPrefix, runOwnerDigest, TERMINAL_STATES, type Models, type RunRecord, type TaskState } from '../db/index.ts';
import type { Message, Task, TaskStatus } from '../a2a/protocol.ts';
import type { EventLog } from './event-log.ts';
import { fromStored, progressFromStored, storedProgress, toStored } from './stored-json.ts';
import type { RunLeases } from './leases.ts';

export interface RunView {
  id: string;
  contextId: string;
  agent: string;
  state: TaskState;
  lastSeq: number;
  actorType: string;
  actorId: string;
  input: Message;
  status: TaskStatus;
  artifacts: Task['artifacts'];
  /** Messages after the input: the agent's status messages and the caller's answers, in order. */
  history: Message[];
  progress: RunProgress;
  createdAt: string;
  updatedAt: string;
}

export interface RunProgress {
  stepIndex?: number;
  outputs?: Record<string, unknown>;
  interrupt?: { stepId: string; screenId: string; title: string; schema: Record<string, unknown>; context?: Record<string, string> } | null;
}

/** `~i/<kind>:<sha256 of [actorId, key]>`: fixed length, and no U+0000 (PostgreSQL-backed servers reject it). */
const idempotencyId = (actorId: string, kind: 'key' | 'message', key: string) => runIdempotencyId(kind, createHash('sha256').update(JSON.stringify([actorId, key])).digest('hex'));

function toView(row: RunRecord & { _id: string; createdAt?: Date; updatedAt?: Date }): RunView {
  return {
    id: row._id,
    contextId: row.contextId,
    agent: row.agent,
    state: row.state as TaskState,
    lastSeq: row.lastSeq,
    actorType: row.actorType,
    actorId: row.actorId,
    input: fromStored<Message>(row.input),
    status: fromStored<TaskStatus>(row.status),
    artifacts: ((row.artifacts ?? []) as unknown[]).map((artifact) => fromStored<NonNullable<Task['artifacts']>[number]>(artifact)),
    history: (((row as { history?: unknown[] }).history ?? []) as unknown[]).map((message) => fromStored<Message>(message)),
    progress: progressFromStored(row.progress),
    createdAt: (row.createdAt ?? new Date(0)).toISOString(),
    updatedAt: (row.updatedAt ?? new Date(0)).toISOString(),
  };
}

/**
 * The A2A Task for a run, as `tasks/get` and the first frame of `tasks/resubscribe` return it:
 * the history holds every message of the task (the input, the agent's messages, the caller's
 * answers), the newest `historyLength` of them when that is given (0: none).
 */
export function taskOf(run: RunView, options: { historyLength?: number; artifacts?: boolean } = {}): Task {
  const history = [run.input, ...run.history];
  const length = options.historyLength;
  return {
    kind: 'task',
    id: run.id,
    contextId: run.contextId,
    status: run.status,
    history: length === undefined ? history : length === 0 ? [] : history.slice(-length),
    artifacts: options.artifacts === false ? [] : (run.artifacts ?? []),
    metadata: { agent: run.agent },
  };
}

/** The most task-list rows one `listOwned` call reads: the count is exact up to here (ADR 0012). */
const LIST_COUNT_LIMIT = 2000;
/** Task-list rows read per query of a listing. */
const LIST_BATCH = 500;
/** A task-list row as a listing reads it. */
type ListRow = { _id: string; runId: string; contextId?: string; state?: string };
/** The most superseded task-list rows one listing drops in passing (most are dropped by their writer). */
const LIST_DROP_LIMIT = 20;

/** Durable runs: created once per request identity (Idempotency-Key or messageId), read by `_id`. */
export function createRunStore(deps: { models: Models; eventLog: EventLog; leases: RunLeases }) {
  const { Run, RunIdempotency } = deps.models;

  async function get(runId: string): Promise<RunView | null> {
    // Ids at or above RUN_HEADS_END name a run's other documents, never a run.
    if (runId.length > 200 || runId >= RUN_HEADS_END) return null;
    const row = await Run.findById(runId).lean();
    return row ? toView(row as RunRecord & { _id: string }) : null;
  }

  /**
   * Creates the run and appends its first event (the submitted Task), unless this actor already
   * sent the same Idempotency-Key or messageId: then the existing run comes back, `created: false`.
   */
  async function create(actor: Actor, input: { agent: string; message: Message; idempotencyKey?: string | null; working?: boolean }): Promise<{ run: RunView; created: boolean }> {
    const runId = uuidv7();
    const keys = [
      ...(input.idempotencyKey ? [idempotencyId(actor.id, 'key', input.idempotencyKey)] : []),
      idempotencyId(actor.id, 'message', input.message.messageId),
    ];
    const contextId = input.message.contextId ?? randomUUID();
    const message: Message = { ...input.message, taskId: runId, contextId };
    const status: TaskStatus = { state: 'submitted', timestamp: new Date().toISOString() };
    const now = new Date();
    const events = [deps.eventLog.eventDocument(runId, 1, { kind: 'task', id: runId, contextId, status, history: [message], artifacts: [], metadata: { agent: input.agent } })];
    // `working`: the caller starts the run in this process at once (it holds the lease), so the
    // executor's first status goes out with the run instead of in writes of its own.
    const current: TaskStatus = input.working ? { state: 'working', timestamp: now.toISOString() } : status;
    if (input.working) events.push(deps.eventLog.eventDocument(runId, 2, { kind: 'status-update', taskId: runId, contextId, status: current, final: false }));
    const progress: RunProgress = { stepIndex: 0, outputs: {} };
    const head = { _id: runId, contextId, agent: input.agent, state: current.state, lastSeq: events.length, actorType: actor.type, actorId: actor.id, input: toStored(message), status: toStored(current), artifacts: [], history: [], progress: storedProgress(progress), createdAt: now, updatedAt: now };
    const listRow = deps.eventLog.listRow(runOwnerDigest(actor.type, actor.id), runId, events.length, current, contextId);
    // One ordered insert: the idempotency keys first (a taken one stops it before anything else
    // is written), then the lease (held by this process, so its executor starts without a claim;
    // it also puts the run in the recovery's working set), the first events, and the run itself.
    const documents = [...keys.map((key) => ({ _id: key, runId, createdAt: now, updatedAt: now })), deps.leases.newLease(runId), ...events, head, listRow];
    try {
      await Run.collection.insertMany(documents as never[], { ordered: true });
    } catch (error) {
      const index = (error as { writeErrors?: { index: number }[] }).writeErrors?.[0]?.index ?? (error as { index?: number }).index;
      if (!isDuplicateKeyError(error) || index === undefined || index >= keys.length) throw error;
      const existing = await RunIdempotency.findById(keys[index]).lean();
      if (index > 0) await RunIdempotency.deleteMany({ _id: { $in: keys.slice(0, index) } });
      const run = existing ? await waitForRun(existing.runId) : null;
      if (run) return { run, created: false };
      throw error;
    }
    deps.eventLog.stored(runId, events.length, listRow._id);
    return { run: { ...toView(head as unknown as RunRecord & { _id: string }), input: message, status: current, progress }, created: true };
  }

  /** A concurrent duplicate may see the idempotency row before the run row exists. */
  async function waitForRun(runId: string): Promise<RunView | null> {
    for (let i = 0; i < 50; i++) {
      const run = await get(runId);
      if (run) return run;
      await new Promise((r) => setTimeout(r, 20));
    }
    return null;
  }

  /** Records that this actor's message was handled; false when it already was (a retry). */
  async function claimMessage(actor: Actor, messageId: string, runId: string): Promise<boolean> {
    try {
      await RunIdempotency.create({ _id: idempotencyId(actor.id, 'message', messageId), runId });
      return true;
    } catch (error) {
      if (isDuplicateKeyError(error)) return false;
      throw error;
    }
  }

  /** Forgets a claimed message whose handling failed, so a corrected retry is not taken for a replay. */
  async function releaseMessage(actor: Actor, messageId: string): Promise<void> {
    await RunIdempotency.deleteOne({ _id: idempotencyId(actor.id, 'message', messageId) });
  }

  /** Stores the executor's progress; false when the run has ended meanwhile (canceled elsewhere), so its worker stops. */
  async function saveProgress(runId: string, progress: RunProgress): Promise<boolean> {
    const result = await Run.updateOne({ _id: runId, state: { $nin: TERMINAL_STATES } }, { $set: { progress: storedProgress(progress) } });
    return result.matchedCount > 0;
  }

  /**
   * Newest first, a page at a time: run ids are time-ordered (UUIDv7), so a page is an `_id`
   * range served by the primary key however many runs are stored. `before` is the last id shown.
   */
  async function list(options: { limit?: number; before?: string | null } = {}): Promise<{ items: RunView[]; nextBefore: string | null }> {
    const size = Math.min(Math.max(options.limit ?? 50, 1), 200);
    // Heads only: every other document of the collection sorts at or above `~` (ADR 0010).
    const below = options.before && options.before < RUN_HEADS_END ? options.before : RUN_HEADS_END;
    const rows = await Run.find({ _id: { $lt: below } }).sort({ _id: -1 }).limit(size + 1).lean();
    const items = rows.slice(0, size).map((row) => toView(row as RunRecord & { _id: string }));
    return { items, nextBefore: rows.length > size ? (items.at(-1)?.id ?? null) : null };
  }

  /**
   * One owner's tasks, most recently updated first (A2A `ListTasks`). The owner's task-list rows
   * (run-keys.ts) are read backwards as an `_id` range, small rows carrying the run's context and
   * state; the first row met per run is its current one. The process that stores a status drops
   * the row it replaces; rows it could not (another process wrote them, a run deleted by
   * retention) are skipped here and a few dropped in passing.
   * The count (`total`) needs every matching row, so it is exact up to `LIST_COUNT_LIMIT` rows of
   * this owner and stops there (a lower bound beyond); the page itself is one `$in` read of heads.
   */
  async function listOwned(actor: Actor, options: { pageSize: number; after?: string | null; contextId?: string; state?: TaskState; updatedAfter?: number }): Promise<{ items: RunView[]; next: string | null; total: number }> {
    const prefix = runListPrefix(runOwnerDigest(actor.type, actor.id));
    const lower = options.updatedAfter !== undefined ? `${prefix}${String(Math.max(0, Math.trunc(options.updatedAfter))).padStart(13, '0')}~` : prefix;
    const seen = new Set<string>();
    const stale: string[] = [];
    /** Matching rows, newest first: the row id (a page token) and its run. */
    const matches: { rowId: string; runId: string }[] = [];
    /** Up to `limit` of this owner's rows below `below`, newest first. */
    const readBelow = async (below: string, limit: number) =>
      (await Run.collection.find({ _id: { $lt: below, $gt: lower } as never }, { projection: { runId: 1, contextId: 1, state: 1 } }).sort({ _id: -1 }).limit(limit).toArray()) as unknown as ListRow[];
    /** The first row met per run is its current one; a later one is superseded. */
    const take = (row: ListRow) => {
      if (seen.has(row.runId)) return void stale.push(row._id);
      seen.add(row.runId);
      if (options.contextId !== undefined && row.contextId !== options.contextId) return;
      if (options.state !== undefined && row.state !== options.state) return;
      matches.push({ rowId: row._id, runId: row.runId });
    };
    const belowToken = () => (options.after ? matches.findIndex((match) => match.rowId < options.after!) : 0);

    let cursor = `${prefix}~`;
    let scanned = 0;
    let exhausted = false;
    while (scanned < LIST_COUNT_LIMIT && !exhausted) {
      const batch = Math.min(LIST_BATCH, LIST_COUNT_LIMIT - scanned);
      const rows = await readBelow(cursor, batch);
      scanned += rows.length;
      for (const row of rows) take(row);
      cursor = rows.at(-1)?._id ?? cursor;
      exhausted = rows.length < batch;
    }
    /** Matches after the token: the page and whether there is more. */
    const pending = () => {
      const start = belowToken();
      return start < 0 ? 0 : matches.length - start;
    };
    if (!exhausted && pending() <= options.pageSize) {
      // The page reaches past the counted rows: read on, from where the count stopped or from the
      // token when it lies further down, until one more match than the page is known.
      let from = options.after && options.after < cursor ? options.after : cursor;
      // Read from the token: its own run's older rows lie right below it, and it was listed already.
      if (from === options.after) seen.add(parseRunListId(options.after)?.runId ?? '');
      for (let rowsLeft = LIST_COUNT_LIMIT; rowsLeft > 0 && !exhausted && pending() <= options.pageSize; ) {
        const rows = await readBelow(from, LIST_BATCH);
        rowsLeft -= rows.length;
        for (const row of rows) take(row);
        from = rows.at(-1)?._id ?? from;
        exhausted = rows.length < LIST_BATCH;
      }
    }
    const start = belowToken();
    const page = start < 0 ? [] : matches.slice(start, start + options.pageSize);
    const heads = new Map((page.length ? await Run.find({ _id: { $in: page.map((match) => match.runId) } }).lean() : []).map((row) => [row._id as string, toView(row as RunRecord & { _id: string })]));
    // The head decides: a row whose run is gone (retention), or older than its run's status (the
    // current row lies above this page's token, so the reader never met it), is dropped.
    const current = (match: { rowId: string; runId: string }) => {
      const run = heads.get(match.runId);
      const statusAt = run ? Date.parse(run.status.timestamp) : Number.NaN;
      return !!run && (Number.isNaN(statusAt) || (parseRunListId(match.rowId)?.at ?? 0) >= statusAt);
    };
    for (const match of page) if (!current(match)) stale.push(match.rowId);
    void dropRows(stale.slice(0, LIST_DROP_LIMIT));
    const items = page.flatMap((match) => (current(match) ? [heads.get(match.runId)!] : []));
    const more = start >= 0 && start + options.pageSize < matches.length;
    const next = page.length && (more || !exhausted) ? page.at(-1)!.rowId : null;
    return { items, next, total: matches.length };
  }

  /** Drops superseded or orphaned task-list rows one `_id` at a time (a delete by `$in` scans on FerretDB), in the background. */
  async function dropRows(ids: string[]): Promise<void> {
    for (const id of ids) await Run.collection.deleteOne({ _id: id as never }).catch(() => undefined);
  }

  /** Whether `token` is a task-list row id of this owner (a page token this service handed out). */
  function ownsListToken(actor: Actor, token: string): boolean {
    return token.startsWith(runListPrefix(runOwnerDigest(actor.type, actor.id))) && parseRunListId(token) !== null;
  }

  return { get, create, claimMessage, releaseMessage, saveProgress, list, listOwned, ownsListToken };
}

export type RunStore = ReturnType<typeof createRunStore>;
