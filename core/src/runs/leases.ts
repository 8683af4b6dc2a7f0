import { createClaims, type Models } from '../db/index.ts';

/** A worker holds a run for this long and renews the lease while it works. */
export const RUN_LEASE_MS = 5_000;
const RENEW_MS = 1_500;

/**
 * Run leases: whoever works on a run (the executor, or the bridge following a remote run) holds
 * its lease and renews it; a lapsed lease means the holder died and anyone may take over.
 *
 * Leases live in `run_leases`, not on the run (FerretDB writes whole documents back, so a renewal
 * there could undo a concurrent status write). Taking a lease over is decided by an insert-once
 * claim per lease generation (its conditional updates are not atomic; ADR 0008).
 */
export function createRunLeases(models: Models) {
  const { Run, RunLease } = models;
  const claims = createClaims(models);
  const workerId = claims.owner;

  /**
   * Wins the takeover of generation `generation` for this worker. If that claim was won by a
   * worker that never recorded its lease (it died in between) and is older than a lease period,
   * a second key naming that stale claim can be won once instead.
   */
  async function winTakeover(runId: string, generation: number): Promise<boolean> {
    const key = `run-lease:${runId}:${generation}`;
    if (await claims.once(key)) return true;
    const at = await claims.claimedAt(key);
    if (!at || Date.now() - at.getTime() < RUN_LEASE_MS) return false;
    return claims.once(`${key}:after:${at.getTime()}`);
  }

  /** Renews this worker's lease, or takes a free or lapsed one; false when someone else holds it. */
  async function claim(runId: string): Promise<boolean> {
    const lease = await RunLease.findById(runId).lean();
    const now = Date.now();
    const until = new Date(now + RUN_LEASE_MS);
    if (lease?.owner === workerId) {
      await RunLease.updateOne({ _id: runId }, { $set: { until } });
      return true;
    }
    if (lease?.owner && lease.until && lease.until.getTime() >= now) return false;
    const generation = lease?.generation ?? 0;
    if (!(await winTakeover(runId, generation))) return false;
    await RunLease.updateOne({ _id: runId }, { $set: { owner: workerId, until, generation: generation + 1 } }, { upsert: true });
    return true;
  }

  /**
   * Claims the run and keeps the lease alive until the returned release is called; null if held
   * elsewhere. `onLost` runs if another worker took the lease over meanwhile (this one stalled
   * past the lease), so the caller stops working on the run.
   */
  async function hold(runId: string, onLost: () => void = () => {}): Promise<(() => Promise<void>) | null> {
    if (!(await claim(runId))) return null;
    let lost = false;
    const renew = setInterval(() => {
      void claim(runId).then(
        (held) => {
          if (held || lost) return;
          lost = true;
          clearInterval(renew);
          onLost();
        },
        () => undefined,
      );
    }, RENEW_MS);
    return async () => {
      clearInterval(renew);
      if (lost) return;
      await RunLease.updateOne({ _id: runId, owner: workerId }, { $set: { owner: null, until: null } }).catch(() => undefined);
    };
  }

  /** Runs still in progress, unmoved for a lease period, whose lease is free or lapsed. */
  async function orphans(filter: Record<string, unknown>): Promise<string[]> {
    const quiet = await Run.find({ ...filter, state: { $in: ['submitted', 'working'] }, updatedAt: { $lt: new Date(Date.now() - RUN_LEASE_MS) } }, { _id: 1 }).lean();
    if (quiet.length === 0) return [];
    const ids = quiet.map((run) => run._id);
    const held = await RunLease.find({ _id: { $in: ids }, owner: { $ne: null }, until: { $gte: new Date() } }, { _id: 1 }).lean();
    const heldIds = new Set(held.map((lease) => lease._id));
    return ids.filter((id) => !heldIds.has(id));
  }

  return { hold, orphans };
}

export type RunLeases = ReturnType<typeof createRunLeases>;
