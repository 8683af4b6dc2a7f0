import type { Database } from '../db/index.ts';
import { insertAbsorbingDuplicates, RUN_KEY_TTL_MS, runEventId } from '../db/index.ts';
import type { Logger } from '../log/index.ts';
import { ACTIVE_STATES, callerOf, isTerminal, listKeyOf, RUN_LAYOUT, stateAfter, toStored, type RunEvent, type RunMessage, type RunState, type RunStatus } from '../runs/index.ts';
import { protocolV03 } from '../a2a/index.ts';

const { eventFrom03, messageFrom03 } = protocolV03;
type Message03 = protocolV03.Message;

const MIGRATION = 'runs-layout-2';
/** Run heads converted per batch (each with its events). */
const BATCH = 100;
/** Rows read or deleted per command while clearing the old rows. */
const CLEAR_BATCH = 5_000;
/** In the earlier layout every document but a run head had an `_id` at or above this. */
const OLD_ROWS_FROM = '~';

const parse = <T>(value: unknown): T => (typeof value === 'string' ? JSON.parse(value) : value) as T;

interface OldHead {
  _id: string;
  contextId: string;
  agent: string;
  state: string;
  actorType: string;
  actorId: string;
  input: unknown;
  status: unknown;
  history?: unknown[];
  progress?: { stepIndex?: number; outputs?: unknown; remote?: { peerId?: string; skillId?: string } };
  createdAt?: Date;
  updatedAt?: Date;
}

export class UnsupportedLayoutError extends Error {
  override name = 'UnsupportedLayoutError';
}

/**
 * Converts runs stored in the earlier layout (ADR 0010: one `runs` collection holding heads,
 * events `~e/…`, leases `~l/…`, keys `~i/…`, task-list rows `~a/…` and end rows `~f/…`, every
 * value in A2A 0.3 shapes) to this one (ADR 0019: heads in `runs`, events in `run_events`,
 * leases in `run_leases`, keys in `run_keys`, all in the run model's shapes).
 *
 * Runs go over in batches in `_id` order; the last converted id is recorded after each batch,
 * so a start interrupted midway goes on from there, and a batch done twice writes the same
 * rows (event inserts skip what is there; a converted head is recognised by its `v`). Old rows
 * are removed once every head is converted. Returns the number of runs converted.
 */
export async function migrateRunsToLayout2(database: Database, logger: Logger, options: { batchSize?: number; signal?: AbortSignal } = {}): Promise<number> {
  const db = database.connection.db!;
  const migrations = db.collection('migrations');
  const marker = (await migrations.findOne({ _id: MIGRATION as never })) as { done?: boolean; after?: string } | null;
  if (marker?.done) return 0;
  await refuseOlderLayouts(database);
  const runs = db.collection('runs');
  const hasOldRows = (await runs.findOne({ _id: { $gte: OLD_ROWS_FROM } as never }, { projection: { _id: 1 } })) !== null;
  const hasOldHeads = (await runs.findOne({ _id: { $lt: OLD_ROWS_FROM } as never, v: { $exists: false } }, { projection: { _id: 1 } })) !== null;
  if (!hasOldRows && !hasOldHeads) {
    await migrations.updateOne({ _id: MIGRATION as never }, { $set: { at: new Date(), done: true } }, { upsert: true });
    return 0;
  }
  logger.info('converting stored runs to the run model in separate collections (once; ADR 0019)');
  let after = marker?.after ?? '';
  let converted = 0;
  for (;;) {
    // A stop between batches is what a crash leaves: the next start goes on from the recorded id.
    if (options.signal?.aborted) return converted;
    const heads = (await runs.find({ _id: { $gt: after, $lt: OLD_ROWS_FROM } as never }).sort({ _id: 1 }).limit(options.batchSize ?? BATCH).toArray()) as unknown as (OldHead & { v?: number })[];
    if (heads.length === 0) break;
    for (const head of heads) {
      if (head.v === RUN_LAYOUT) continue;
      await convertRun(database, head);
      converted++;
    }
    after = heads.at(-1)!._id;
    await migrations.updateOne({ _id: MIGRATION as never }, { $set: { at: new Date(), after } }, { upsert: true });
    logger.info(`converted ${converted} run(s) so far`);
  }
  await carryKeys(database);
  // Every head is converted: the old rows (events, leases, keys, task-list and end rows) go.
  for (;;) {
    const rows = await runs.find({ _id: { $gte: OLD_ROWS_FROM } as never }, { projection: { _id: 1 } }).limit(CLEAR_BATCH).toArray();
    if (rows.length === 0) break;
    await runs.deleteMany({ _id: { $gte: OLD_ROWS_FROM, $lte: rows.at(-1)!._id } as never });
  }
  await migrations.updateOne({ _id: MIGRATION as never }, { $set: { at: new Date(), done: true } }, { upsert: true });
  logger.info(`converted ${converted} run(s) to the run model`);
  return converted;
}

/** A database from before ADR 0010 keeps its events in `run_events` under another shape: this version cannot read it. */
async function refuseOlderLayouts(database: Database): Promise<void> {
  const first = await database.connection.db!.collection('run_events').findOne({}, { projection: { payload: 1, event: 1 } });
  if (first && first.payload !== undefined && first.event === undefined) {
    throw new UnsupportedLayoutError('The runs in this database were stored by a version from before 2026-11-24 (run_events with A2A payloads). Start the version of 2026-11-25 on it once (it moves them), then this one.');
  }
}

async function convertRun(database: Database, head: OldHead): Promise<void> {
  const db = database.connection.db!;
  const runs = db.collection('runs');
  const oldEvents = await runs.find({ _id: { $gt: `~e/${head._id}/`, $lt: `~e/${head._id}0` } as never }).sort({ _id: 1 }).toArray();
  const history = (head.history ?? []).map((message) => parse<Message03>(message));
  const state = head.state as RunState;
  const events = convertEvents(oldEvents.map((row) => parse(row.payload)), history);
  const progress = head.progress ?? {};
  // The executor's position in an unfinished run lived on the head: it becomes an event of the log.
  if (!isTerminal(state) && ((progress.stepIndex ?? 0) > 0 || progress.outputs !== undefined)) {
    events.push({ type: 'progress', stepIndex: progress.stepIndex ?? 0, outputs: parse<Record<string, unknown>>(progress.outputs ?? {}) ?? {} });
  }
  let current: RunState = 'submitted';
  const documents = events.map((event, i) => {
    current = stateAfter(current, event);
    return { _id: runEventId(head._id, i + 1), runId: head._id, seq: i + 1, type: event.type, event: toStored(event), state: current, generation: 0, at: head.updatedAt ?? new Date() };
  });
  if (documents.length) {
    await insertAbsorbingDuplicates(database.models.RunEvent.collection, documents);
  }
  const status = (events.findLast((event) => event.type === 'status' || event.type === 'created') as { status: RunStatus } | undefined)?.status ?? statusFrom(head.status);
  const lastStatusSeq = events.findLastIndex((event) => event.type === 'status' || event.type === 'created') + 1;
  const updatedAt = new Date(Date.parse(status.timestamp) || head.updatedAt?.getTime() || Date.now());
  const remote = progress.remote?.peerId && progress.remote.skillId ? { peerId: progress.remote.peerId, skillId: progress.remote.skillId } : null;
  await runs.replaceOne({ _id: head._id as never }, {
    contextId: head.contextId,
    agent: head.agent,
    state: documents.at(-1)?.state ?? state,
    lastSeq: lastStatusSeq,
    actorType: head.actorType,
    actorId: head.actorId,
    caller: callerOf(head.actorType, head.actorId),
    input: toStored(messageFrom03(parse<Message03>(head.input))),
    status: toStored(status),
    remote,
    v: RUN_LAYOUT,
    createdAt: head.createdAt ?? updatedAt,
    updatedAt,
    listKey: listKeyOf(updatedAt.getTime(), head._id),
  });
  // Runs still being worked on join the recovery's working set with a lapsed lease: the first pass continues them.
  if (ACTIVE_STATES.includes(state)) await database.models.RunLease.collection.updateOne({ _id: head._id as never }, { $setOnInsert: { owner: null, generation: 0, renewedAt: new Date(0) } }, { upsert: true });
}

function statusFrom(stored: unknown): RunStatus {
  const event = eventFrom03({ kind: 'status-update', status: parse(stored), final: false });
  return event?.type === 'status' ? event.status : { state: 'unknown', timestamp: new Date(0).toISOString() };
}

/**
 * The old events in the run model. The earlier layout kept a caller's answer only in the head's
 * history, between the status messages; here it joins the status that took it (`received`).
 */
function convertEvents(payloads: unknown[], history: Message03[]): RunEvent[] {
  const events: RunEvent[] = [];
  let next = 0;
  for (const payload of payloads) {
    const event = eventFrom03(payload);
    if (!event) continue;
    if (event.type === 'status') {
      const pending: RunMessage[] = [];
      while (next < history.length && history[next]!.role === 'user' && history[next]!.messageId !== event.status.message?.id) pending.push(messageFrom03(history[next++]!));
      if (event.status.message && history[next]?.messageId === event.status.message.id) next++;
      for (const message of pending.slice(0, -1)) events.push({ type: 'message', message });
      if (pending.length) event.received = pending.at(-1)!;
    }
    events.push(event);
  }
  return events;
}

/** Idempotency keys that have not expired move to `run_keys`, so a retry right after the upgrade still finds its run. */
async function carryKeys(database: Database): Promise<void> {
  const runs = database.connection.db!.collection('runs');
  let after = '~i/';
  for (;;) {
    const rows = await runs.find({ _id: { $gt: after, $lt: '~i0' } as never }).sort({ _id: 1 }).limit(CLEAR_BATCH).toArray();
    if (rows.length === 0) return;
    const now = Date.now();
    const keys = rows
      .map((row) => ({ _id: String(row._id).slice('~i/'.length), runId: String(row.runId), expiresAt: new Date(((row.createdAt as Date | undefined)?.getTime() ?? now) + RUN_KEY_TTL_MS) }))
      .filter((key) => key.expiresAt.getTime() > now);
    if (keys.length) {
      await insertAbsorbingDuplicates(database.models.RunKey.collection, keys);
    }
    after = String(rows.at(-1)!._id);
  }
}
