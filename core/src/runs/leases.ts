import { createClaims, isDuplicateKeyError, TERMINAL_STATES, type Models, type TaskState } from '../db/index.ts';

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
 * `run_leases` is also the recovery pass's working set: a run's row is inserted when the run is
 * created (owned by the creating process, so it starts working without a claim) and deleted
 * once its terminal state is stored, so the pass reads unfinished runs only.
 */
export function createRunLeases(models: Models) {
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
  async function hold(runId: string, onLost: () => void = () => {}, options: { owned?: boolean } = {}): Promise<(() => Promise<void>) | null> {
    // `owned`: this worker inserted the lease with the run (ownNew) a moment ago.
    if (!options.owned && !(await claim(runId))) return null;
    let lost = false;
    const renew = setInterval(() => {
      if (done.has(runId)) return;
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
      if (done.delete(runId) || lost) return;
      await RunLease.updateOne({ _id: runId, owner: workerId }, { $set: { owner: null, until: null } }).catch(() => undefined);
    };
  }

  /** Records a run just created as unfinished and held by this worker: its lease row, before the run row. */
  async function ownNew(runId: string): Promise<void> {
    await RunLease.create({ _id: runId, owner: workerId, until: new Date(Date.now() + RUN_LEASE_MS), generation: 0 });
  }

  /** Takes a finished run out of the working set (after its terminal state is stored). */
  async function finished(runId: string): Promise<void> {
    await RunLease.deleteOne({ _id: runId });
    done.add(runId);
    // Runs finished here but held elsewhere are never released here: keep the set bounded.
    if (done.size > 10_000) done.delete(done.values().next().value!);
  }

  /**
   * Runs still in progress, unmoved for a lease period, whose lease is free or lapsed; `remote`
   * picks runs bridged from a peer (the remote bridge recovers those) or local ones (the executor).
   * Reads the working set (`run_leases`: unfinished runs only), then the runs it names by `_id`,
   * so the pass costs the same however many finished runs are stored.
   */
  async function orphans(which: { remote: boolean }): Promise<string[]> {
    const now = Date.now();
    const leases = await RunLease.find({}, { owner: 1, until: 1 }).lean();
    const free = leases.filter((lease) => !lease.owner || !lease.until || lease.until.getTime() < now).map((lease) => lease._id);
    if (free.length === 0) return [];
    const runs = await Run.find({ _id: { $in: free } }, { state: 1, updatedAt: 1, 'progress.remote': 1 }).lean();
    const found = new Set(runs.map((run) => run._id));
    // Rows left by a crash between a run's terminal event and the removal of its row, or before the run row was written.
    const gone = [...free.filter((id) => !found.has(id)), ...runs.filter((run) => TERMINAL_STATES.includes(run.state as TaskState)).map((run) => run._id)];
    if (gone.length > 0) await RunLease.deleteMany({ _id: { $in: gone } });
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
   * Makes `run_leases` the working set on a database written before it was one: drops the rows
   * of finished runs and adds free rows for unfinished runs that have none. One pass over both
   * collections, once per database (afterwards one `_id` read). Safe in several processes at once.
   */
  async function trackUnfinishedRuns(): Promise<number> {
    if (await Migration.exists({ _id: LEASES_MIGRATION })) return 0;
    const leased = (await RunLease.find({}, { _id: 1 }).lean()).map((row) => row._id);
    for (let i = 0; i < leased.length; i += 500) {
      const ids = leased.slice(i, i + 500);
      const live = new Set((await Run.find({ _id: { $in: ids }, state: { $nin: TERMINAL_STATES } }, { _id: 1 }).lean()).map((run) => run._id));
      const gone = ids.filter((id) => !live.has(id));
      if (gone.length > 0) await RunLease.deleteMany({ _id: { $in: gone } });
    }
    const unfinished = await Run.find({ state: { $nin: TERMINAL_STATES } }, { _id: 1 }).lean();
    if (unfinished.length > 0) {
      await RunLease.insertMany(unfinished.map((row) => ({ _id: row._id, owner: null, until: null, generation: 0 })), { ordered: false }).catch((error: unknown) => {
        if (!isDuplicateKeyError(error)) throw error;
      });
    }
    await Migration.create({ _id: LEASES_MIGRATION, at: new Date() }).catch((error: unknown) => {
      if (!isDuplicateKeyError(error)) throw error;
    });
    return unfinished.length;
  }

  return { ownNew, hold, finished, orphans, trackUnfinishedRuns };
}

export type RunLeases = ReturnType<typeof createRunLeases>;
