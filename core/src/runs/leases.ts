import type { Logger } from '../log/index.ts';
import { createClaims, isDuplicateKeyError, runHeads, runIdOfLease, runLeaseId, runLeaseRange, TERMINAL_STATES, type Models, type TaskState } from '../db/index.ts';

/** A worker holds a run for this long and renews the lease while it works. */
export const RUN_LEASE_MS = 5_000;
const RENEW_MS = 1_500;
const LEASES_MIGRATION = 'run-leases-working-set';
const RECOVERABLE_STATES: readonly TaskState[] = ['submitted', 'working'];

/**
 * Run leases: whoever works on a run (the executor, or the bridge following a remote run) holds
 * its lease and renews it; a lapsed lease means the holder died and anyone may take over.
 *
 * Leases live in `run_leases`, not on the run (FerretDB writes whole documents back, so a renewal
 * there could undo a concurrent status write). Taking a lease over is decided by an insert-once
 * claim per lease generation (its conditional updates are not atomic; ADR 0008).
 *
 * The lease rows are also the recovery pass's working set: a run's row is written with the run
 * (owned by the creating process, so it starts working without a claim) and removed by the pass
 * once the run is finished and the lease lapsed, so the pass reads (nearly) unfinished runs only.
 */
export function createRunLeases(models: Models, logger?: Logger) {
  const { Run, RunLease, Migration } = models;
  const claims = createClaims(models);
  const workerId = claims.owner;
  /** Runs this worker finished (lease row deleted): nothing to renew or release for them. */
  const done = new Set<string>();

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
    const lease = await RunLease.findById(runLeaseId(runId)).lean();
    const now = Date.now();
    const until = new Date(now + RUN_LEASE_MS);
    if (lease?.owner === workerId) {
      await RunLease.updateOne({ _id: runLeaseId(runId) }, { $set: { until } });
      return true;
    }
    if (lease?.owner && lease.until && lease.until.getTime() >= now) return false;
    const generation = lease?.generation ?? 0;
    if (!(await winTakeover(runId, generation))) return false;
    await RunLease.updateOne({ _id: runLeaseId(runId) }, { $set: { owner: workerId, until, generation: generation + 1 } }, { upsert: true });
    return true;
  }

  /**
   * Claims the run and keeps the lease alive until the returned release is called; null if held
   * elsewhere. `onLost` runs if another worker took the lease over meanwhile (this one stalled
   * past the lease), so the caller stops working on the run.
   */
  async function hold(runId: string, onLost: () => void = () => {}, options: { owned?: boolean } = {}): Promise<(() => Promise<void>) | null> {
    // `owned`: this worker inserted the lease with the run (ownNew) a moment ago.
    if (!options.owned && !(await claim(runId))) return null;
    let lost = false;
    const lose = () => {
      if (lost) return;
      lost = true;
      clearInterval(renew);
      onLost();
    };
    const renew = setInterval(() => {
      if (done.has(runId)) return;
      void claim(runId).then(
        (held) => {
          if (!held) lose();
        },
        // Not renewed means not known to be held: another worker may take the run over once the
        // lease lapses, so this one stops now (the run continues from its last stored step).
        (error: unknown) => {
          logger?.warn('run lease renewal failed; this worker stops the run', { runId, error });
          lose();
        },
      );
    }, RENEW_MS);
    return async () => {
      clearInterval(renew);
      if (done.delete(runId) || lost) return;
      await RunLease.updateOne({ _id: runLeaseId(runId), owner: workerId }, { $set: { owner: null, until: null } }).catch(() => undefined);
    };
  }

  /** The lease row of a run this worker is creating: held by it, so it starts without a claim. */
  function newLease(runId: string) {
    return { _id: runLeaseId(runId), owner: workerId, until: new Date(Date.now() + RUN_LEASE_MS), generation: 0 };
  }

  /**
   * A run's terminal state is stored: stop renewing and releasing its lease. The row itself is
   * left to lapse and be removed by the next recovery pass (no write on the request's path).
   */
  async function finished(runId: string): Promise<void> {
    done.add(runId);
    // Runs finished here but held elsewhere are never released here: keep the set bounded.
    if (done.size > 10_000) done.delete(done.values().next().value!);
  }

  /**
   * Runs still in progress, unmoved for a lease period, whose lease is free or lapsed; `remote`
   * picks runs bridged from a peer (the remote bridge recovers those) or local ones (the executor).
   * Reads the working set (the lease rows: unfinished runs only), then the runs it names by `_id`,
   * so the pass costs the same however many finished runs are stored.
   */
  async function orphans(which: { remote: boolean }): Promise<string[]> {
    const now = Date.now();
    const leases = await RunLease.find({ _id: runLeaseRange() }, { owner: 1, until: 1 }).lean();
    const free = leases.filter((lease) => !lease.owner || !lease.until || lease.until.getTime() < now).map((lease) => runIdOfLease(lease._id));
    if (free.length === 0) return [];
    const runs = await Run.find({ _id: { $in: free } }, { state: 1, updatedAt: 1, 'progress.remote': 1 }).lean();
    const found = new Set(runs.map((run) => run._id));
    // Finished runs' rows (left to lapse at the terminal state) and rows whose run never got written.
    const gone = [...free.filter((id) => !found.has(id)), ...runs.filter((run) => TERMINAL_STATES.includes(run.state as TaskState)).map((run) => run._id)];
    if (gone.length > 0) await RunLease.deleteMany({ _id: { $in: gone.map(runLeaseId) } });
    const quietSince = now - RUN_LEASE_MS;
    return runs
      .filter((run) => RECOVERABLE_STATES.includes(run.state as TaskState) && run.updatedAt.getTime() < quietSince)
      .filter((run) => {
        const remote = (run.progress as { remote?: { remoteTaskId?: string | null } } | undefined)?.remote;
        return which.remote ? Boolean(remote?.remoteTaskId) : remote === undefined;
      })
      .map((run) => run._id);
  }

  /**
   * Gives every unfinished run without a lease row a free one, so the recovery pass sees it:
   * for databases written before the lease rows were the working set. One pass over the run
   * heads, once per database (afterwards one `_id` read). Safe in several processes at once.
   */
  async function trackUnfinishedRuns(): Promise<number> {
    if (await Migration.exists({ _id: LEASES_MIGRATION })) return 0;
    const unfinished = await Run.find({ ...runHeads(), state: { $nin: TERMINAL_STATES } }, { _id: 1 }).lean();
    if (unfinished.length > 0) {
      await RunLease.insertMany(unfinished.map((row) => ({ _id: runLeaseId(row._id), owner: null, until: null, generation: 0 })), { ordered: false }).catch((error: unknown) => {
        if (!isDuplicateKeyError(error)) throw error;
      });
    }
    await Migration.create({ _id: LEASES_MIGRATION, at: new Date() }).catch((error: unknown) => {
      if (!isDuplicateKeyError(error)) throw error;
    });
    return unfinished.length;
  }

  return { newLease, hold, finished, orphans, trackUnfinishedRuns };
}

export type RunLeases = ReturnType<typeof createRunLeases>;
