import { createClaims, type Models } from '../db/index.ts';

/** A worker holds a run for this long and renews the lease while it works. */
export const RUN_LEASE_MS = 5_000;
const RENEW_MS = 1_500;

/**
 * Run leases: whoever works on a run (the executor, or the bridge following a remote run) holds
 * its lease and renews it; a lapsed lease means the holder died and anyone may take over.
 */
export function createRunLeases(models: Models) {
  const { Run } = models;
  const claims = createClaims(models);
  const workerId = claims.owner;

  /**
   * Renews this worker's lease, or takes a free or lapsed one. Taking over is decided by an
   * insert-once claim per lease generation (FerretDB's conditional updates are not atomic: two
   * processes could both take the lease). The key also names the lease period, so a winner that
   * died before recording its lease does not block the run for good.
   */
  async function claim(runId: string): Promise<boolean> {
    const run = await Run.findById(runId, { leaseOwner: 1, leaseUntil: 1, leaseGeneration: 1 }).lean();
    if (!run) return false;
    const now = Date.now();
    const until = new Date(now + RUN_LEASE_MS);
    if (run.leaseOwner === workerId) {
      await Run.updateOne({ _id: runId, leaseOwner: workerId }, { $set: { leaseUntil: until } });
      return true;
    }
    if (run.leaseOwner && run.leaseUntil && run.leaseUntil.getTime() >= now) return false;
    const generation = run.leaseGeneration ?? 0;
    if (!(await claims.once(`run-lease:${runId}:${generation}:${Math.floor(now / RUN_LEASE_MS)}`))) return false;
    await Run.updateOne({ _id: runId }, { $set: { leaseOwner: workerId, leaseUntil: until, leaseGeneration: generation + 1 } });
    return true;
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
