import { createClaims, createInsertBatcher, isDuplicateKeyError, type Models, type ServerProfile } from '../db/index.ts';
import type { Logger } from '../log/index.ts';
import { ACTIVE_STATES, type RunState } from './model.ts';

/** A holder renews its lease this often; a lease not renewed for `RUN_LEASE_MS` has lapsed. */
export const RUN_LEASE_MS = 5_000;
const RENEW_MS = 1_500;

/** A run whose worker stopped renewing: who may take it over, from which generation. */
export interface Orphan {
  runId: string;
  /** The lease row's generation, which a takeover must still find. */
  generation: number;
  /** The server time before which a renewal counts as lapsed, as the pass read it. */
  cutoff: Date;
}

export interface HeldLease {
  /** Stops renewing and frees the lease (the run is still active: anyone may continue it once it lapses). */
  release(): Promise<void>;
  /** Stops renewing and removes the row: the run paused, nobody works on it until it is answered. */
  pause(): Promise<void>;
}

/**
 * Run leases (`run_leases`): whoever works on a run holds its lease and renews it; a lease that
 * lapsed means the holder stopped, and the recovery pass takes the run over. Lease times are the
 * database server's (`$currentDate`, `hello.localTime`), so hosts never compare their own clocks.
 *
 * A lease says who should be working; it does not fence writes by itself. The generation it
 * hands out is written into the event log by the new holder's first append, and every later
 * append of the old holder is refused there (event-log.ts). Taking a lease over is a conditional
 * update on servers whose conditional updates are atomic, and an insert-once claim per
 * generation on FerretDB 1.x, whose are not (ADR 0008).
 */
export function createRunLeases(models: Models, deps: { profile: () => Promise<ServerProfile>; serverTime: () => Promise<Date>; logger?: Logger; owner?: string; renewMs?: number }) {
  const { Run, RunLease } = models;
  const claims = createClaims(models, deps.owner);
  const owner = claims.owner;
  /** Runs this process finished: their renewals stop (the pass removes the rows). */
  const done = new Set<string>();
  /** Leases of runs created at once are inserted together (ADR 0029). */
  const leaseInserts = createInsertBatcher(RunLease.collection);

  /**
   * The lease of a run this process creates and starts at once: held by it, generation 0. An
   * insert (cheaper than an upsert) with this host's time: the first renewal, 1.5 s later, puts
   * the server's time there; until then a lapse is judged with this host's clock skew on top.
   */
  async function create(runId: string): Promise<void> {
    await leaseInserts.insert([{ _id: runId, owner, generation: 0, renewedAt: new Date() }]);
  }

  /**
   * Makes sure an answered run is in the working set before its answer is stored, and reads the
   * generation the lease row is at (the answer starts the next one). Touching `renewedAt` keeps
   * the recovery pass from removing the row of the paused run meanwhile.
   */
  async function adopt(runId: string): Promise<number> {
    const touch = () => RunLease.collection.findOneAndUpdate({ _id: runId as never }, { $setOnInsert: { owner: null, generation: 0 }, $currentDate: { renewedAt: true } }, { upsert: true, returnDocument: 'after' });
    // Two upserts racing to insert the same row: one meets the other's insert and, run again, finds it.
    const row = await touch().catch((error: unknown) => {
      if (isDuplicateKeyError(error)) return touch();
      throw error;
    });
    return (row?.generation as number | undefined) ?? 0;
  }

  /** Records this process as the holder of `generation` (the answer that started it is stored). */
  async function claim(runId: string, generation: number): Promise<void> {
    await RunLease.collection.updateOne({ _id: runId as never, generation: { $lt: generation } }, { $set: { owner, generation }, $currentDate: { renewedAt: true } });
  }

  /**
   * Keeps renewing the lease of `generation` while this process works on the run; `onLost` runs
   * when a renewal finds the lease taken over (or cannot be made), so the work stops.
   */
  function hold(runId: string, generation: number, onLost: () => void): HeldLease {
    let stopped = false;
    const stop = () => {
      stopped = true;
      clearInterval(timer);
    };
    const timer = setInterval(() => {
      if (done.has(runId)) return stop();
      void RunLease.collection.updateOne({ _id: runId as never, owner, generation }, { $currentDate: { renewedAt: true } }).then(
        (result) => {
          if (result.matchedCount === 0 && !stopped && !done.has(runId)) {
            deps.logger?.warn('run lease taken over by another worker; this one stops', { runId, generation });
            stop();
            onLost();
          }
        },
        // Not renewed means not known to be held: another worker may take over once it lapses.
        (error: unknown) => {
          if (stopped) return;
          deps.logger?.warn('run lease renewal failed; this worker stops the run', { runId, error });
          stop();
          onLost();
        },
      );
    }, deps.renewMs ?? RENEW_MS);
    return {
      async release() {
        if (stopped) return;
        stop();
        if (done.delete(runId)) return;
        await RunLease.collection.updateOne({ _id: runId as never, owner, generation }, { $set: { owner: null } }).catch(() => undefined);
      },
      async pause() {
        stop();
        done.delete(runId);
        await RunLease.collection.deleteOne({ _id: runId as never, owner, generation }).catch(() => undefined);
      },
    };
  }

  /** The run's terminal event is stored: stop renewing. The row lapses and the next pass removes it (no write on the request's path). */
  async function finished(runId: string): Promise<void> {
    done.add(runId);
    if (done.size > 10_000) done.delete(done.values().next().value!);
  }

  /**
   * Takes the lapsed lease of `orphan` for `generation` (above the row's and the log's); true for
   * exactly one of any number of racing processes.
   */
  async function takeOver(orphan: Orphan, generation: number): Promise<boolean> {
    const { runId } = orphan;
    if ((await deps.profile()).atomicUpdates) {
      const result = await RunLease.collection.updateOne({ _id: runId as never, generation: orphan.generation, renewedAt: { $lt: orphan.cutoff } }, { $set: { owner, generation }, $currentDate: { renewedAt: true } });
      return result.modifiedCount === 1;
    }
    if (!(await claims.onceOrLapsed(`run-lease:${runId}:${generation}`, RUN_LEASE_MS))) return false;
    await RunLease.collection.updateOne({ _id: runId as never }, { $set: { owner, generation }, $currentDate: { renewedAt: true } });
    return true;
  }

  /**
   * Runs still submitted or working whose lease lapsed; `remote` picks runs bridged from a peer
   * (the remote bridge recovers those) or local ones (the executor). Reads the working set whole
   * (runs in progress only), then their heads by `_id`; rows of runs that paused or ended, or
   * whose head never got written, are removed on the way.
   */
  async function orphans(which: { remote: boolean }): Promise<Orphan[]> {
    const cutoff = new Date((await deps.serverTime()).getTime() - RUN_LEASE_MS);
    const rows = await RunLease.collection.find({}, { projection: { generation: 1, renewedAt: 1 } }).toArray();
    const lapsed = rows.filter((row) => (row.renewedAt as Date).getTime() < cutoff.getTime());
    if (lapsed.length === 0) return [];
    const heads = await Run.collection.find({ _id: { $in: lapsed.map((row) => row._id) } as never }, { projection: { state: 1, remote: 1 } }).toArray();
    const byId = new Map(heads.map((head) => [String(head._id), head]));
    const gone = lapsed.filter((row) => !ACTIVE_STATES.includes(byId.get(String(row._id))?.state as RunState));
    // Guarded by the renewal time read: a row touched since (an answer adopting it) stays.
    if (gone.length) await RunLease.collection.deleteMany({ _id: { $in: gone.map((row) => row._id) } as never, renewedAt: { $lt: cutoff } });
    return lapsed
      .filter((row) => {
        const head = byId.get(String(row._id));
        return head && ACTIVE_STATES.includes(head.state as RunState) && Boolean(head.remote) === which.remote;
      })
      .map((row) => ({ runId: String(row._id), generation: row.generation as number, cutoff }));
  }

  return { owner, create, adopt, claim, hold, finished, takeOver, orphans };
}

export type RunLeases = ReturnType<typeof createRunLeases>;
