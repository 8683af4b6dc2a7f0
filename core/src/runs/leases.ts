import { createClaims, isDuplicateKeyError, TERMINAL_STATES, type Models, type TaskState } from '../db/index.ts';

/** A worker holds a run for this long and renews the lease while it works. */
export const RUN_LEASE_MS = 5_000;
const RENEW_MS = 1_500;
const ACTIVE_RUNS_MIGRATION = 'active-runs';
const RECOVERABLE_STATES: readonly TaskState[] = ['submitted', 'working'];

/**
 * Run leases: whoever works on a run (the executor, or the bridge following a remote run) holds
 * its lease and renews it; a lapsed lease means the holder died and anyone may take over.
 *
 * Leases live in `run_leases`, not on the run (FerretDB writes whole documents back, so a renewal
 * there could undo a concurrent status write). Taking a lease over is decided by an insert-once
 * claim per lease generation (its conditional updates are not atomic; ADR 0008).
 */
export function createRunLeases(models: Models) {
  const { Run, RunLease, ActiveRun, Migration } = models;
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

  /**
   * Runs still in progress, unmoved for a lease period, whose lease is free or lapsed; `remote`
   * picks runs bridged from a peer (the remote bridge recovers those) or local ones (the executor).
   * Reads the `active_runs` working set and then only the runs and leases it names, by `_id`, so
   * the pass costs the same however many finished runs are stored.
   */
  async function orphans(which: { remote: boolean }): Promise<string[]> {
    const active = await ActiveRun.find({}, { _id: 1 }).lean();
    if (active.length === 0) return [];
    const runs = await Run.find({ _id: { $in: active.map((row) => row._id) } }, { state: 1, updatedAt: 1, 'progress.remote': 1 }).lean();
    const found = new Set(runs.map((run) => run._id));
    const finished = [...active.map((row) => row._id).filter((id) => !found.has(id)), ...runs.filter((run) => TERMINAL_STATES.includes(run.state as TaskState)).map((run) => run._id)];
    // A crash between a run's terminal event and the removal of its row (or before the run row was written).
    if (finished.length > 0) await ActiveRun.deleteMany({ _id: { $in: finished } });
    const quietSince = Date.now() - RUN_LEASE_MS;
    const quiet = runs
      .filter((run) => RECOVERABLE_STATES.includes(run.state as TaskState) && run.updatedAt.getTime() < quietSince)
      .filter((run) => {
        const remote = (run.progress as { remote?: { remoteTaskId?: string | null } } | undefined)?.remote;
        return which.remote ? Boolean(remote?.remoteTaskId) : remote === undefined;
      })
      .map((run) => run._id);
    if (quiet.length === 0) return [];
    const now = Date.now();
    const leases = await RunLease.find({ _id: { $in: quiet } }, { owner: 1, until: 1 }).lean();
    const held = new Set(leases.filter((lease) => lease.owner && lease.until && lease.until.getTime() >= now).map((lease) => lease._id));
    return quiet.filter((id) => !held.has(id));
  }

  /**
   * Adds runs stored before `active_runs` existed to it: one scan of the unfinished runs, once
   * per database (afterwards one `_id` read). Safe to run in several processes at once.
   */
  async function trackUnfinishedRuns(): Promise<number> {
    if (await Migration.exists({ _id: ACTIVE_RUNS_MIGRATION })) return 0;
    const rows = await Run.find({ state: { $nin: TERMINAL_STATES } }, { _id: 1 }).lean();
    if (rows.length > 0) {
      await ActiveRun.insertMany(rows.map((row) => ({ _id: row._id, since: new Date() })), { ordered: false }).catch((error: unknown) => {
        if (!isDuplicateKeyError(error)) throw error;
      });
    }
    await Migration.create({ _id: ACTIVE_RUNS_MIGRATION, at: new Date() }).catch((error: unknown) => {
      if (!isDuplicateKeyError(error)) throw error;
    });
    return rows.length;
  }

  return { hold, orphans, trackUnfinishedRuns };
}

export type RunLeases = ReturnType<typeof createRunLeases>;
