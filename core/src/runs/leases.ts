import { randomUUID } from 'node:crypto';
import type { Models } from '../db/index.ts';

/** A worker holds a run for this long and renews the lease while it works. */
export const RUN_LEASE_MS = 5_000;
const RENEW_MS = 1_500;

/**
 * Run leases: whoever works on a run (the executor, or the bridge following a remote run) holds
 * its lease and renews it; a lapsed lease means the holder died and anyone may take over.
 */
export function createRunLeases(models: Models) {
  const { Run } = models;
  const workerId = `${process.pid}:${randomUUID()}`;

  async function claim(runId: string): Promise<boolean> {
    const now = new Date();
    const claimed = await Run.findOneAndUpdate(
      { _id: runId, $or: [{ leaseUntil: null }, { leaseUntil: { $lt: now } }, { leaseOwner: workerId }] },
      { $set: { leaseOwner: workerId, leaseUntil: new Date(now.getTime() + RUN_LEASE_MS) } },
      { new: true, lean: true },
    );
    return claimed !== null;
  }

  /** Claims the run and keeps the lease alive until the returned release is called; null if held elsewhere. */
  async function hold(runId: string): Promise<(() => Promise<void>) | null> {
    if (!(await claim(runId))) return null;
    const renew = setInterval(() => void claim(runId).catch(() => undefined), RENEW_MS);
    return async () => {
      clearInterval(renew);
      await Run.updateOne({ _id: runId, leaseOwner: workerId }, { $set: { leaseOwner: null, leaseUntil: null } }).catch(() => undefined);
    };
  }

  /** Runs still in progress whose lease lapsed and that have not moved for a lease period. */
  async function orphans(filter: Record<string, unknown>): Promise<string[]> {
    const rows = await Run.find(
      { ...filter, state: { $in: ['submitted', 'working'] }, $or: [{ leaseUntil: null }, { leaseUntil: { $lt: new Date() } }] },
      { _id: 1, updatedAt: 1 },
    ).lean();
    return rows.filter((run) => Date.now() - (run.updatedAt?.getTime() ?? 0) > RUN_LEASE_MS).map((run) => run._id);
  }

  return { hold, orphans };
}

export type RunLeases = ReturnType<typeof createRunLeases>;
