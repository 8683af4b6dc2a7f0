import { createHash, randomUUID } from 'node:crypto';
import type { Actor } from '../auth/index.ts';
import { createInsertBatcher, isDuplicateKeyError, readPage, RUN_KEY_TTL_MS, runEventsAfter, type Models, type RunRecord } from '../db/index.ts';
import { currentTraceparent, recordRunAppend } from '../telemetry/index.ts';
import { uuidv7 } from '../ids/index.ts';
import { listKeyOf, type EventLog, type StoredEvent, type Tail } from './event-log.ts';
import type { RunLeases } from './leases.ts';
import { type RemoteLink, type RunEvent, type RunMessage, type RunState, type RunStatus, type RunUsage } from './model.ts';
import { foldRun, type RunSummary, type RunView } from './run-view.ts';
import { fromStored, toStored } from './stored-json.ts';

/** The storage layout of run heads written by this version (ADR 0019). */
export const RUN_LAYOUT = 2;
/** The most runs a listing page holds. */
const MAX_PAGE = 200;

/** `<kind>:<SHA-256 of [actorId, key]>`: fixed length, and no U+0000 (PostgreSQL-backed servers reject it). */
export const runKeyId = (actorId: string, kind: 'key' | 'message', key: string) => `${kind}:${createHash('sha256').update(JSON.stringify([actorId, key])).digest('hex')}`;

/** The head's `caller`: who started a run, as one index term. */
export const callerOf = (actorType: string, actorId: string) => `${actorType}:${actorId}`;

/** Whose runs a page token names: a fixed-length digest of the caller, so a token cannot page someone else's list. */
const ownerDigest = (actorType: string, actorId: string) => createHash('sha256').update(`${actorType}:${actorId}`).digest('hex').slice(0, 24);
const LIST_KEY = /^\d{13}\/[0-9a-f-]{1,64}$/;

type HeadRow = RunRecord & { _id: string };

function summaryOf(row: HeadRow): RunSummary {
  return {
    id: row._id,
    contextId: row.contextId,
    agent: row.agent,
    state: row.state as RunState,
    status: fromStored<RunStatus>(row.status),
    lastSeq: row.lastSeq,
    actorType: row.actorType,
    actorId: row.actorId,
    input: fromStored<RunMessage>(row.input),
    remote: (row.remote as RemoteLink | null) ?? null,
    ...(row.traceparent ? { traceparent: row.traceparent } : {}),
    ...(row.usage ? { usage: row.usage as RunUsage } : {}),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/**
 * The index a listing's filter was made for (db/models/run.ts), named as a hint: the query shapes
 * are fixed, and a planner without table statistics (FerretDB 2 right after a bulk load) would
 * otherwise scan the table.
 */
function indexFor(filter: Record<string, unknown>, key: '_id' | 'listKey'): string | { _id: 1 } {
  if (key === 'listKey') return filter.state !== undefined ? 'caller_state_recent' : filter.contextId !== undefined ? 'caller_context_recent' : 'caller_recent';
  if (filter.caller !== undefined) return 'caller_newest';
  if (filter.state !== undefined) return 'state_newest';
  if (filter.agent !== undefined) return 'agent_newest';
  return { _id: 1 };
}

export interface ListFilter {
  state?: RunState;
  agent?: string;
  caller?: { type: string; id: string };
}

/**
 * Runs: created once per request identity (Idempotency-Key or messageId), read by `_id`, listed
 * by their heads' indexes. A run read whole is its head folded with its event log.
 */
export function createRunStore(deps: { models: Models; eventLog: EventLog; leases: RunLeases }) {
  const { Run, RunEvent, RunKey, RunLease } = deps.models;
  /** Runs created at once share their inserts: one per collection per batch (ADR 0029). */
  const keyInserts = createInsertBatcher(RunKey.collection);
  const headInserts = createInsertBatcher(Run.collection);

  async function head(runId: string): Promise<RunSummary | null> {
    if (runId.length > 200) return null;
    const row = await Run.collection.findOne({ _id: runId as never });
    return row ? summaryOf(row as unknown as HeadRow) : null;
  }

  /** Every event of a run, in order. */
  const readAll = (runId: string): Promise<StoredEvent[]> => deps.eventLog.readAfter(runId, 0);

  /** The run read whole; a head the log has moved past (a projection lost to a crash) is moved forward on the way. */
  async function viewOf(summary: RunSummary): Promise<RunView> {
    const events = await readAll(summary.id);
    const view = foldRun(summary, events);
    const latest = events.findLast((stored) => stored.event.type === 'status' || stored.event.type === 'created');
    if (latest && (latest.seq > summary.lastSeq || latest.state !== summary.state)) void deps.eventLog.projectStatus(summary.id, latest.seq, view.status).catch(() => undefined);
    return view;
  }

  async function get(runId: string): Promise<RunView | null> {
    const summary = await head(runId);
    return summary ? viewOf(summary) : null;
  }

  /**
   * Creates the run: its idempotency keys, its head, its first events and its lease (held by this
   * process, which starts it at once), all at once. A taken key means a retry: what this attempt
   * wrote is withdrawn (nobody knows its run id yet) and the retry gets the run the key names.
   * A process that dies between the two leaves a run without its keys, which the recovery pass
   * withdraws instead of running (`isDuplicate`). `working`: the caller starts it right now, so
   * the run is stored already working. `events`: the run's first events as stored (none for a
   * retry), so a caller can send them without reading them back.
   */
  async function create(actor: Actor, input: { agent: string; message: RunMessage; idempotencyKey?: string | null; working?: boolean; remote?: RemoteLink }): Promise<{ run: RunView; created: boolean; events: StoredEvent[] }> {
    const runId = uuidv7();
    const now = new Date();
    const traceparent = currentTraceparent();
    const keys = [...(input.idempotencyKey ? [runKeyId(actor.id, 'key', input.idempotencyKey)] : []), runKeyId(actor.id, 'message', input.message.id)];
    const contextId = input.message.contextId ?? randomUUID();
    const message: RunMessage = { ...input.message, runId, contextId };
    const submitted: RunStatus = { state: 'submitted', timestamp: now.toISOString() };
    const current: RunStatus = input.working ? { state: 'working', timestamp: now.toISOString() } : submitted;
    const events: RunEvent[] = [{ type: 'created', runId, contextId, agent: input.agent, input: message, status: submitted }];
    if (input.working) events.push({ type: 'status', status: current, final: false });
    const tail: Tail = { seq: events.length, state: current.state, generation: 0 };
    const head = {
      _id: runId,
      contextId,
      agent: input.agent,
      state: current.state,
      lastSeq: events.length,
      actorType: actor.type,
      actorId: actor.id,
      caller: callerOf(actor.type, actor.id),
      keys,
      input: toStored(message),
      status: toStored(current),
      remote: input.remote ?? null,
      ...(traceparent ? { traceparent } : {}),
      v: RUN_LAYOUT,
      createdAt: now,
      updatedAt: now,
      listKey: listKeyOf(now.getTime(), runId),
    };
    let state: RunState = 'submitted';
    const documents = events.map((event, i) => deps.eventLog.eventDocument(runId, i + 1, event, (state = event.type === 'status' ? event.status.state : state), 0));
    const [claimed, stored] = await Promise.allSettled([
      keyInserts.insert(keys.map((_id) => ({ _id, runId, expiresAt: new Date(now.getTime() + RUN_KEY_TTL_MS) }))),
      Promise.all([headInserts.insert([head]), deps.eventLog.insertEvents(documents), deps.leases.create(runId)]),
    ]);
    if (claimed.status === 'rejected') {
      const error = claimed.reason as unknown;
      const index = (error as { writeErrors?: { index: number }[] }).writeErrors?.[0]?.index ?? (error as { index?: number }).index;
      await withdraw(runId, keys.slice(0, index ?? 0));
      if (!isDuplicateKeyError(error) || index === undefined) throw error;
      const existing = await RunKey.collection.findOne({ _id: keys[index] as never });
      const run = existing ? await waitForRun(String(existing.runId)) : null;
      if (run) return { run, created: false, events: [] };
      throw error;
    }
    if (stored.status === 'rejected') {
      await withdraw(runId, keys);
      throw stored.reason;
    }
    deps.eventLog.stored(runId, tail);
    recordRunAppend(events, null);
    const summary = summaryOf(head as unknown as HeadRow);
    const firstEvents = documents.map((document, i): StoredEvent => ({ seq: document.seq, event: events[i]!, state: document.state, generation: 0 }));
    return { run: { ...summary, history: [], artifacts: [], interrupt: null, progress: { stepIndex: 0, outputs: {} }, tail }, created: true, events: firstEvents };
  }

  /** Removes everything a creation attempt wrote (its run id was never handed out). */
  async function withdraw(runId: string, keys: string[]): Promise<void> {
    await Promise.all([
      keys.length ? RunKey.collection.deleteMany({ _id: { $in: keys } as never, runId }) : Promise.resolve(),
      Run.collection.deleteOne({ _id: runId as never }),
      RunEvent.collection.deleteMany({ _id: runEventsAfter(runId, 0) as never }),
      RunLease.collection.deleteOne({ _id: runId as never }),
    ]);
  }

  /**
   * Whether a run lost its idempotency keys to another run (its creator died before it could
   * withdraw it, and a retry created the run the keys name): such a run is withdrawn, never run.
   */
  async function isDuplicate(runId: string): Promise<boolean> {
    const row = await Run.collection.findOne({ _id: runId as never }, { projection: { keys: 1 } });
    const keys = (row?.keys as string[] | undefined) ?? [];
    if (keys.length === 0) return false;
    const owners = await RunKey.collection.find({ _id: { $in: keys } as never }, { projection: { runId: 1 } }).toArray();
    if (!owners.some((owner) => owner.runId !== runId)) return false;
    await withdraw(runId, []);
    return true;
  }

  /** A concurrent duplicate may see the key before the run's head exists. */
  async function waitForRun(runId: string): Promise<RunView | null> {
    for (let i = 0; i < 100; i++) {
      const run = await get(runId);
      if (run) return run;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return null;
  }

  /** Heads matching `filter`, in `key` order from newest, a page below `before`. */
  async function page(filter: Record<string, unknown>, key: '_id' | 'listKey', size: number, before: string | null): Promise<{ rows: HeadRow[]; next: string | null }> {
    // No bound on a first page: DocumentDB (FerretDB 2) reads a range that takes in every key
    // (`< "~"`) term by term, 120 ms instead of 4 at 100 000 heads.
    const bound = { ...(before ? { $lt: before } : {}), ...((filter[key] as object | undefined) ?? {}) };
    const query = Object.keys(bound).length ? { ...filter, [key]: bound } : filter;
    const rows = await readPage<HeadRow & { listKey: string }>(Run.collection, query, { sort: { [key]: -1 }, limit: size + 1, hint: indexFor(filter, key) });
    const shown = rows.slice(0, size);
    return { rows: shown, next: rows.length > size ? ((shown.at(-1)?.[key] as string | undefined) ?? null) : null };
  }

  /**
   * The runs page: newest run first (run ids are time-ordered), optionally by state, agent or
   * caller; `before` is the previous page's `nextBefore`.
   */
  async function list(options: { limit?: number; before?: string | null } & ListFilter = {}): Promise<{ items: RunSummary[]; nextBefore: string | null }> {
    const size = Math.min(Math.max(options.limit ?? 50, 1), MAX_PAGE);
    const filter: Record<string, unknown> = {
      ...(options.caller ? { caller: callerOf(options.caller.type, options.caller.id) } : {}),
      ...(options.state ? { state: options.state } : {}),
      ...(options.agent ? { agent: options.agent } : {}),
    };
    const { rows, next } = await page(filter, '_id', size, options.before?.slice(0, 200) ?? null);
    return { items: rows.map(summaryOf), nextBefore: next };
  }

  /**
   * One caller's runs (A2A ListTasks), newest status first: a page of heads from the index that
   * fits the filter, the exact count of all that match, and each run read whole when its
   * history or artifacts are asked for. `after` is a page token from `ownsListToken`.
   */
  async function listOwned(actor: Actor, options: { pageSize: number; after?: string | null; contextId?: string; state?: RunState; updatedAfter?: number; whole?: boolean; agent?: string }): Promise<{ items: RunView[]; next: string | null; total: number }> {
    const filter: Record<string, unknown> = {
      caller: callerOf(actor.type, actor.id),
      // One agent's endpoint lists its agent's runs: read off the caller's index (a caller's runs are few).
      ...(options.agent !== undefined ? { agent: options.agent } : {}),
      ...(options.state ? { state: options.state } : {}),
      ...(options.contextId !== undefined ? { contextId: options.contextId } : {}),
      ...(options.updatedAfter !== undefined ? { listKey: { $gt: listKeyOf(options.updatedAfter, '~') } } : {}),
    };
    const after = options.after ? options.after.slice(options.after.indexOf('.') + 1) : null;
    const [{ rows, next }, total] = await Promise.all([page(filter, 'listKey', Math.min(options.pageSize, MAX_PAGE), after), Run.collection.countDocuments(filter as never, { hint: indexFor(filter, 'listKey') })]);
    const summaries = rows.map(summaryOf);
    const items = options.whole === false ? summaries.map((summary) => foldRun(summary, [])) : await Promise.all(summaries.map(viewOf));
    return { items, next: next ? `${ownerDigest(actor.type, actor.id)}.${next}` : null, total };
  }

  /** Whether `token` is a page token this service handed `actor` (it names the caller). */
  function ownsListToken(actor: Actor, token: string): boolean {
    const [owner, key] = token.split('.', 2);
    return owner === ownerDigest(actor.type, actor.id) && key !== undefined && LIST_KEY.test(key);
  }

  /** Deletes idempotency keys past their expiry: the TTL index's work on servers without one. */
  async function forgetExpiredKeys(): Promise<number> {
    return (await RunKey.collection.deleteMany({ expiresAt: { $lt: new Date() } })).deletedCount;
  }

  return { head, get, viewOf, readAll, create, isDuplicate, list, listOwned, ownsListToken, forgetExpiredKeys };
}

export type RunStore = ReturnType<typeof createRunStore>;
