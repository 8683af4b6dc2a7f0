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
