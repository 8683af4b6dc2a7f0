import { createHash } from 'node:crypto';

/**
 * The `runs` collection holds five kinds of document, told apart by their `_id` (ADR 0010):
 * run heads under the task id (a UUID), and under `~` prefixes, which sort after every task id,
 * the run's events, its lease, the idempotency keys that created it and, once it ended, its end row. Keeping them in one
 * collection lets a new run be written in one command (idempotency key, lease, first event and
 * head in one ordered insert) and a run's history be read and deleted as `_id` ranges.
 */

/** Every run head sorts below this; events, leases and idempotency keys above it. */
export const RUN_HEADS_END = '~';

/** The filter that selects run heads only (the runs page, counts). */
export const runHeads = () => ({ _id: { $lt: RUN_HEADS_END } });

/** One event: `~e/<runId>/<seq as 12 digits>`, so a run's events sort in sequence order. */
export const runEventId = (runId: string, seq: number) => `~e/${runId}/${String(seq).padStart(12, '0')}`;

/** The events of `runId` after `afterSeq`, as an `_id` range (they end before `~e/<runId>0`). */
export const runEventsAfter = (runId: string, afterSeq: number) => ({ $gt: runEventId(runId, afterSeq), $lt: `~e/${runId}0` });

const LEASE_PREFIX = '~l/';
/** A run's lease row, present while the run is unfinished (the recovery working set). */
export const runLeaseId = (runId: string) => `${LEASE_PREFIX}${runId}`;
export const runIdOfLease = (leaseId: string) => leaseId.slice(LEASE_PREFIX.length);
/** Every lease row, as an `_id` range. */
export const runLeaseRange = () => ({ $gt: LEASE_PREFIX, $lt: '~l0' });

/**
 * A run's end: `~f/<runId>`, inserted first in the same ordered insert as the run's terminal
 * event, so exactly one terminal state is ever stored (a second one meets the taken `_id`).
 */
export const runEndId = (runId: string) => `~f/${runId}`;

/** An idempotency key: `~i/<kind>:<digest>`. */
export const runIdempotencyId = (kind: string, digest: string) => `~i/${kind}:${digest}`;

/**
 * A task-list row: `~a/<owner digest>/<status time, ms, 13 digits>/<runId>/<seq, 12 digits>`,
 * written with every status change, so one client's tasks, most recently updated first, are an
 * `_id` range read backwards. A row is current while its time is the run's status time; older
 * rows of the same run are skipped (and dropped) by the reader.
 */
/** Whose task-list rows: a fixed-length digest of the owning actor. */
export const runOwnerDigest = (actorType: string, actorId: string) => createHash('sha256').update(`${actorType}:${actorId}`).digest('hex').slice(0, 24);
export const runListPrefix = (ownerDigest: string) => `~a/${ownerDigest}/`;
export const runListId = (ownerDigest: string, at: number, runId: string, seq: number) => `${runListPrefix(ownerDigest)}${String(Math.max(0, Math.trunc(at))).padStart(13, '0')}/${runId}/${String(seq).padStart(12, '0')}`;
/** The parts of a task-list row's `_id`. */
export function parseRunListId(id: string): { at: number; runId: string } | null {
  const match = /^~a\/[0-9a-f]+\/(\d{13})\/([^/]+)\/\d{12}$/.exec(id);
  return match ? { at: Number(match[1]), runId: match[2]! } : null;
}
