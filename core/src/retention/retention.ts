import { Types } from 'mongoose';
import { readPage, runEventsAfter, type Models } from '../db/index.ts';
import { TERMINAL_STATES } from '../runs/index.ts';
import { uuidv7Floor } from '../ids/index.ts';

export interface RetentionPolicy {
  runsDays: number | null;
  auditDays: number | null;
  jobsDays: number | null;
}

export interface SweepResult {
  runs: number;
  events: number;
  audit: number;
  jobs: number;
}

const DAY_MS = 86_400_000;
/** Rows looked at per kind and pass: a pass costs the same however much history is stored. */
export const RETENTION_BATCH = 500;
const FINISHED_JOB_STATES = ['succeeded', 'failed', 'discarded'];


/**
 * Deletes history older than the operator's retention settings (null keeps everything), in
 * bounded batches from the oldest `_id` up: ids are time-ordered (UUIDv7 runs, ObjectId audit
 * rows and jobs), so each batch is an index range. Unfinished runs and jobs are never deleted;
 * for jobs a per-process cursor steps over them so they cannot stall the sweep.
 */
export function createRetention(models: Models, policy: RetentionPolicy, now: () => number = Date.now) {
  const { Run, RunEvent, RunKey, RunLease, PushConfig, PushCursor, PushDelivery, AuditEvent, ImportJob, PublishJob, ImportSyncEvent } = models;
  const cursors = { importJobs: null as Types.ObjectId | null, publishJobs: null as Types.ObjectId | null };

  /**
   * Finished runs created before the cutoff, oldest first, per terminal state (each an index
   * range on `state` + `_id`), at most a batch per pass. Everything of a run goes: its events,
   * idempotency keys and lease row first, its head last, so an interrupted sweep leaves nothing
   * unreachable (the head is what the next pass finds); so do its push configs and their outbox rows.
   */
  async function sweepRuns(days: number): Promise<{ runs: number; events: number }> {
    const cutoff = now() - days * DAY_MS;
    const rows = (await Promise.all(TERMINAL_STATES.map((state) => readPage(Run.collection, { state, _id: { $lt: uuidv7Floor(cutoff) } as never }, { sort: { _id: 1 }, limit: RETENTION_BATCH, projection: { createdAt: 1 }, hint: 'state_newest' })))).flat();
    // Older ids not made by uuidv7 (random UUIDs) are judged by their creation time.
    const expired = rows.filter((row) => ((row.createdAt as Date | undefined)?.getTime() ?? 0) < cutoff).map((row) => String(row._id)).slice(0, RETENTION_BATCH);
    if (expired.length === 0) return { runs: 0, events: 0 };
    let events = 0;
    for (const runId of expired) events += (await RunEvent.collection.deleteMany({ _id: runEventsAfter(runId, 0) as never })).deletedCount;
    await RunKey.collection.deleteMany({ runId: { $in: expired } });
    // Push configs of the runs, and what was left to send to them (a config's outbox rows are the `_id` range under its id).
    for (const config of await PushConfig.find({ runId: { $in: expired } }, { _id: 1 }).lean()) {
      await PushDelivery.collection.deleteMany({ _id: { $gte: `${config._id}/`, $lt: `${config._id}0` } as never });
      await PushCursor.collection.deleteOne({ _id: config._id as never });
    }
    await PushConfig.collection.deleteMany({ runId: { $in: expired } });
    await RunLease.collection.deleteMany({ _id: { $in: expired } as never });
    const runs = (await Run.collection.deleteMany({ _id: { $in: expired } as never })).deletedCount;
    return { runs, events };
  }

  async function sweepAudit(days: number): Promise<number> {
    const before = Types.ObjectId.createFromTime(Math.floor((now() - days * DAY_MS) / 1000));
    const rows = await AuditEvent.find({ _id: { $lt: before } }, { _id: 1 }).sort({ _id: 1 }).limit(RETENTION_BATCH).lean();
    if (rows.length === 0) return 0;
    return (await AuditEvent.deleteMany({ _id: { $in: rows.map((row) => row._id) } })).deletedCount;
  }

  async function sweepJobs(days: number): Promise<number> {
    const before = Types.ObjectId.createFromTime(Math.floor((now() - days * DAY_MS) / 1000));
    let deleted = 0;
    for (const [model, key] of [[ImportJob, 'importJobs'], [PublishJob, 'publishJobs']] as const) {
      const from = cursors[key];
      const rows = await (model as typeof ImportJob).find({ _id: { $lt: before, ...(from ? { $gt: from } : {}) } }, { state: 1 }).sort({ _id: 1 }).limit(RETENTION_BATCH).lean();
      cursors[key] = rows.length < RETENTION_BATCH ? null : (rows[rows.length - 1]!._id as Types.ObjectId);
      const expired = rows.filter((row) => FINISHED_JOB_STATES.includes(row.state)).map((row) => row._id);
      if (expired.length) deleted += (await (model as typeof ImportJob).deleteMany({ _id: { $in: expired } })).deletedCount;
    }
    const history = await ImportSyncEvent.find({ _id: { $lt: before } }, { _id: 1 }).sort({ _id: 1 }).limit(RETENTION_BATCH).lean();
    if (history.length) deleted += (await ImportSyncEvent.deleteMany({ _id: { $in: history.map((row) => row._id) } })).deletedCount;
    return deleted;
  }

  return {
    policy,
    /** One bounded pass over every kind with a retention set. */
    async sweep(): Promise<SweepResult> {
      const runs = policy.runsDays ? await sweepRuns(policy.runsDays) : { runs: 0, events: 0 };
      const audit = policy.auditDays ? await sweepAudit(policy.auditDays) : 0;
      const jobs = policy.jobsDays ? await sweepJobs(policy.jobsDays) : 0;
      return { ...runs, audit, jobs };
    },
  };
}

export type Retention = ReturnType<typeof createRetention>;
