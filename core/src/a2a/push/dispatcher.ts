import { createClaims, insertAbsorbingDuplicates, readPage, runEventId, type Models, type ServerProfile } from '../../db/index.ts';
import { DomainError } from '../../errors/index.ts';
import type { OutboundHttp } from '../../http/index.ts';
import type { Logger } from '../../log/index.ts';
import { isEndEvent, isVisible, type EventLog } from '../../runs/index.ts';
import type { PushConfigs, PushProtocol } from './configs.ts';
import { deliveriesOf, deliveryId } from './keys.ts';
import { notificationBody, notificationHeaders, type PushSigner } from './notification.ts';

export interface PushDispatcherOptions {
  /** The wait before the second attempt; each later one waits twice as long, up to `maxDelayMs`. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Attempts before a notification is given up (logged and dropped; the config's later ones go on). */
  maxAttempts?: number;
  /** Per POST, until the receiver's answer (the spec recommends 10 to 30 s). */
  timeoutMs?: number;
  /** Cursors and outbox rows read per pass (each pass goes on after where the last one stopped). */
  cursorsPerPass?: number;
  deliveriesPerPass?: number;
}

/** Events read per config per pass. */
const ENQUEUE_BATCH = 200;
/** Cursors looked at per pass, and outbox rows read per pass. */
const CURSORS_PER_PASS = 1_000;
const DELIVERIES_PER_PASS = 500;
/** Configs sent to at once in one pass (each one's notifications go one after the other). */
const PARALLEL_CONFIGS = 8;
/** A process that took a notification to send has this long before another may take it. */
const SEND_LEASE_MS = 60_000;
/** A process that took a cursor to enqueue its next events has this long before another may take it. */
const ENQUEUE_CLAIM_MS = 60_000;

const EPOCH = new Date(0);

/**
 * Push notifications out of the run event log, through a durable outbox (`push_deliveries`).
 * Each pass (every web process runs them, ADR 0033):
 *
 * 1. Enqueue: for each cursor (`push_cursors`: configs whose task may still have events) whose
 *    run has an event past it, one process claims the cursor as it read it (a pass that read it
 *    before another moved it gets nothing: the rows it would insert may be sent and deleted by
 *    now), the visible events after it become outbox rows keyed `<config>/<seq>`, then the cursor
 *    moves and is free, or goes once the terminal event is in. A crash between the insert and the
 *    move leaves the claim to lapse, and the rows are enqueued again: the keys absorb those still
 *    there; one sent in between is sent again (at least once, as the spec has it).
 * 2. Deliver: per config, its oldest row, then the next, in event order; a failure waits
 *    (exponential backoff) and holds the config's later rows behind it, so a receiver sees its
 *    task's notifications in order. A row is deleted once a 2xx answered it, or once given up
 *    (logged): delivery is at least once, and `X-A2A-Notification-Seq` (the event's number) lets
 *    the receiver drop repeats. Both reads are `_id` order, served by the primary key everywhere.
 */
export function createPushDispatcher(deps: { models: Models; profile: () => Promise<ServerProfile>; eventLog: Pick<EventLog, 'readAfter'>; configs: PushConfigs; outbound: Pick<OutboundHttp, 'fetch'>; signer: PushSigner; logger: Logger; options?: PushDispatcherOptions }) {
  const { PushCursor, PushDelivery, RunEvent } = deps.models;
  const baseDelay = deps.options?.baseDelayMs ?? 1_000;
  const maxDelay = deps.options?.maxDelayMs ?? 10 * 60_000;
  const maxAttempts = deps.options?.maxAttempts ?? 10;
  const timeoutMs = deps.options?.timeoutMs ?? 15_000;
  const cursorsPerPass = deps.options?.cursorsPerPass ?? CURSORS_PER_PASS;
  const deliveriesPerPass = deps.options?.deliveriesPerPass ?? DELIVERIES_PER_PASS;
  /**
   * Where the next pass starts reading cursors and outbox rows: after the last key the previous
   * one read when it read a full page, else from the start. Tasks paused for good (their cursors
   * stay) or a config with a long backlog cannot keep the others out of every pass.
   */
  let cursorsAfter = '';
  let deliveriesAfter = '';
  const claims = createClaims(deps.models);

  /**
   * Takes a cursor or an outbox row as this pass read it, for `leaseMs`: true for one of any
   * number of passes that read it so. A conditional update on the state read where those are
   * atomic. On FerretDB 1.x (ADR 0008) an insert-once claim naming that state decides the race
   * first (the key names the lease as read, so each lapsed holder leaves a new key behind), then
   * the same conditional update, which refuses a pass whose read is older than the claim's lapse.
   */
  async function take(model: typeof PushCursor | typeof PushDelivery, read: { _id: string } & Record<string, unknown>, claimKey: string, lease: Record<string, Date>, leaseMs: number): Promise<boolean> {
    if (!(await deps.profile()).atomicUpdates && !(await claims.onceOrLapsed(claimKey, leaseMs))) return false;
    return (await model.collection.updateOne(read as never, { $set: lease })).modifiedCount === 1;
  }

  /** A lease as a claim key names it: its time, or 0 for none. */
  const leaseKey = (until: Date | null | undefined) => until?.getTime() ?? 0;

  async function enqueue(): Promise<number> {
    const open = await readPage<{ _id: string; runId: string; contextId: string; protocol: string; enqueuedSeq: number; claimUntil?: Date | null }>(PushCursor.collection, cursorsAfter ? { _id: { $gt: cursorsAfter } } as never : {}, { sort: { _id: 1 }, limit: cursorsPerPass });
    cursorsAfter = open.length === cursorsPerPass ? open.at(-1)!._id : '';
    if (open.length === 0) return 0;
    // One `_id` look-up tells which runs have an event past their configs' cursors.
    const next = [...new Set(open.map((config) => runEventId(config.runId, config.enqueuedSeq + 1)))];
    const present = new Set((await readPage<{ _id: string }>(RunEvent.collection, { _id: { $in: next } } as never, { sort: { _id: 1 }, limit: next.length, projection: { _id: 1 } })).map((row) => row._id));
    let enqueued = 0;
    for (const config of open) {
      if (!present.has(runEventId(config.runId, config.enqueuedSeq + 1))) continue;
      const now = new Date();
      if (config.claimUntil && config.claimUntil > now) continue;
      // The cursor as read, or nothing: once a row is sent it is deleted, so its key no longer absorbs a second insert.
      const claimUntil = new Date(now.getTime() + ENQUEUE_CLAIM_MS);
      if (!(await take(PushCursor, { _id: config._id, enqueuedSeq: config.enqueuedSeq, claimUntil: config.claimUntil ?? null }, `push-enqueue:${config._id}:${config.enqueuedSeq}:${leaseKey(config.claimUntil)}`, { claimUntil }, ENQUEUE_CLAIM_MS))) continue;
      const mine = { _id: config._id, claimUntil };
      const events = await deps.eventLog.readAfter(config.runId, config.enqueuedSeq, ENQUEUE_BATCH);
      const last = events.at(-1);
      if (!last) {
        await PushCursor.updateOne(mine, { $set: { claimUntil: EPOCH } });
        continue;
      }
      const run = { id: config.runId, contextId: config.contextId };
      const rows = events.flatMap((stored) => (isVisible(stored.event) ? [{
        _id: deliveryId(config._id, stored.seq),
        runId: config.runId,
        configRef: config._id,
        seq: stored.seq,
        body: notificationBody(stored.event, run, config.protocol as PushProtocol),
        attempts: 0,
        nextAttemptAt: new Date(),
        leaseUntil: EPOCH,
        lastError: null,
      }] : []));
      if (rows.length) {
        await insertAbsorbingDuplicates(PushDelivery.collection, rows);
        enqueued += rows.length;
      }
      // Nothing comes after a task's terminal event: the config leaves the working set.
      if (events.some((stored) => isEndEvent(stored.event))) await PushCursor.deleteOne(mine);
      else await PushCursor.updateOne({ ...mine, enqueuedSeq: { $lt: last.seq } }, { $set: { enqueuedSeq: last.seq, claimUntil: EPOCH } });
    }
    return enqueued;
  }

  type Row = { _id: string; runId: string; configRef: string; seq: number; body: string; attempts: number; nextAttemptAt: Date; leaseUntil: Date };

  /** One POST; what became of it: taken, worth another try, or not (refused by the policy, or a 4xx that says it will not be taken). */
  async function post(row: Row): Promise<{ outcome: 'taken' | 'retry' | 'final'; reason?: string } | null> {
    try {
      // Opening the secrets or signing may fail too (the database is away, a master key is missing): worth another try.
      const target = await deps.configs.target(row.configRef);
      if (!target) return null;
      const response = await deps.outbound.fetch(target.url, { method: 'POST', headers: await notificationHeaders(target, row.seq, row.body, deps.signer), body: row.body, timeoutMs, maxRedirects: 0 });
      await response.body?.cancel().catch(() => undefined);
      if (response.ok) return { outcome: 'taken' };
      const reason = `HTTP ${response.status}`;
      return { outcome: response.status >= 500 || response.status === 408 || response.status === 429 ? 'retry' : 'final', reason };
    } catch (error) {
      if (error instanceof DomainError && error.code === 'OUTBOUND_REFUSED') return { outcome: 'final', reason: error.message };
      return { outcome: 'retry', reason: error instanceof DomainError ? error.message : 'network error' };
    }
  }

  /** A config's due rows, oldest first, until one fails or is not due yet. */
  async function deliverConfig(rows: Row[]): Promise<{ delivered: number; failed: number }> {
    let delivered = 0;
    let failed = 0;
    for (const row of rows) {
      const now = new Date();
      if (row.nextAttemptAt > now || row.leaseUntil > now) break;
      // Claimed only as read: a row another process has tried since (its attempts moved) waits for its own backoff.
      if (!(await take(PushDelivery, { _id: row._id, leaseUntil: row.leaseUntil, attempts: row.attempts }, `push-send:${row._id}:${row.attempts}:${leaseKey(row.leaseUntil)}`, { leaseUntil: new Date(now.getTime() + SEND_LEASE_MS) }, SEND_LEASE_MS))) break;
      const result = await post(row);
      if (!result) {
        // The config was deleted: so is what was still to be sent to it.
        await PushDelivery.deleteMany(deliveriesOf(row.configRef));
        break;
      }
      if (result.outcome === 'taken') {
        await PushDelivery.deleteOne({ _id: row._id });
        delivered++;
        continue;
      }
      const attempts = row.attempts + 1;
      if (result.outcome === 'retry' && attempts < maxAttempts) {
        const delay = Math.min(maxDelay, baseDelay * 2 ** (attempts - 1));
        await PushDelivery.updateOne({ _id: row._id }, { $set: { attempts, nextAttemptAt: new Date(Date.now() + delay), leaseUntil: EPOCH, lastError: result.reason ?? null } });
        deps.logger.warn('push notification not delivered; retrying', { runId: row.runId, config: row.configRef, seq: row.seq, attempts, retryInMs: delay, reason: result.reason });
        break;
      }
      // Given up: said in the log (no header or body in it), and the config's next notification goes on.
      deps.logger.warn('push notification given up', { runId: row.runId, config: row.configRef, seq: row.seq, attempts, reason: result.reason });
      await PushDelivery.deleteOne({ _id: row._id });
      failed++;
    }
    return { delivered, failed };
  }

  async function deliver(): Promise<{ delivered: number; failed: number }> {
    const rows = await readPage<Row>(PushDelivery.collection, deliveriesAfter ? { _id: { $gt: deliveriesAfter } } as never : {}, { sort: { _id: 1 }, limit: deliveriesPerPass, projection: { runId: 1, configRef: 1, seq: 1, body: 1, attempts: 1, nextAttemptAt: 1, leaseUntil: 1 } });
    // A full page: the next pass starts after the last config in it (whose head this pass had).
    deliveriesAfter = rows.length === deliveriesPerPass ? `${rows.at(-1)!.configRef}0` : '';
    const byConfig = new Map<string, Row[]>();
    for (const row of rows) {
      const group = byConfig.get(row.configRef);
      if (group) group.push(row);
      else byConfig.set(row.configRef, [row]);
    }
    const groups = [...byConfig.values()];
    const totals = { delivered: 0, failed: 0 };
    for (let at = 0; at < groups.length; at += PARALLEL_CONFIGS) {
      for (const result of await Promise.all(groups.slice(at, at + PARALLEL_CONFIGS).map(deliverConfig))) {
        totals.delivered += result.delivered;
        totals.failed += result.failed;
      }
    }
    return totals;
  }

  /** One pass: enqueue what the logs hold past each cursor, then send what is due. */
  async function pass(): Promise<{ enqueued: number; delivered: number; failed: number }> {
    const enqueued = await enqueue();
    return { enqueued, ...(await deliver()) };
  }

  return { pass, enqueue, deliver };
}

export type PushDispatcher = ReturnType<typeof createPushDispatcher>;
