/**
 * Cost against history: each hot path of the service on a database holding 1k runs and on one
 * holding 10k and 100k (events ×4, audit rows ×1, a small set of unfinished runs with their leases), interleaved in
 * one process. Goal: every row's 100k/1k ratio <= 2, on the embedded default and on MONGODB_URI.
 *
 *   BENCH_SIZES=1000,10000,100000 (default)   BENCH_ITERATIONS=30 (default)
 */
import { randomUUID } from 'node:crypto';
import { createAuditLog } from '@service/core/audit';
import { runEventId } from '@service/core/db';
import { uuidv7 } from '@service/core/ids';
import { createLogger } from '@service/core/log';
import { createEventLog, createRunLeases, createRunStore, listKeyOf } from '@service/core/runs';
import { insertInBatches } from './insert-batches.ts';
import { benchDatabase } from './bench-environment.ts';
import { percentile } from './harness.ts';
import { recordFigure } from './results.ts';

const SIZES = (process.env.BENCH_SIZES ?? '1000,10000,100000').split(',').map(Number);
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 30);
const EVENTS_PER_RUN = 4;
const UNFINISHED = 20;
const BATCH = 5_000;
const GOAL = 2;

const status = (state: string) => ({ state, timestamp: '2026-01-01T00:00:00.000Z' });
const message = JSON.stringify({ id: 'm', role: 'user', parts: [{ type: 'text', text: 'hello' }] });

interface Fixture {
  size: number;
  kind: string;
  /** A run still working, with events, that the paths below read and append to. */
  liveRun: string;
  paths: Record<string, () => Promise<unknown>>;
  stop(): Promise<void>;
}

async function seed(size: number): Promise<Fixture> {
  const database = await benchDatabase(`bench_growth_${size}`);
  const { Run, RunEvent, AuditEvent, RunLease } = database.db.models;
  const started = Date.now();
  // Runs created over the last year, oldest first; all but a few finished.
  const yearAgo = Date.now() - 365 * 86_400_000;
  let liveRun = '';
  for (let from = 0; from < size; from += BATCH) {
    const runs = [];
    const events = [];
    const audit = [];
    const active = [];
    for (let i = from; i < Math.min(size, from + BATCH); i++) {
      const at = yearAgo + Math.floor((i / size) * 365 * 86_400_000);
      const id = uuidv7(at);
      const unfinished = i >= size - UNFINISHED;
      const state = unfinished ? 'working' : 'completed';
      const statusText = JSON.stringify(status(state));
      runs.push({ _id: id, contextId: randomUUID(), agent: '@bench/echo', state, lastSeq: EVENTS_PER_RUN, actorType: 'a2a', actorId: 'client', input: message, status: statusText, remote: null, v: 2, createdAt: new Date(at), updatedAt: new Date(at), listKey: listKeyOf(at, id) });
      for (let seq = 1; seq <= EVENTS_PER_RUN; seq++) {
        const eventState = seq === EVENTS_PER_RUN ? state : 'working';
        events.push({ _id: runEventId(id, seq), runId: id, seq, type: 'status', event: JSON.stringify({ type: 'status', final: seq === EVENTS_PER_RUN, status: status(eventState) }), state: eventState, generation: 0, at: new Date(at) });
      }
      audit.push({ actorType: 'a2a', actorId: 'client', action: 'a2a.message.send', resourceType: 'run', resourceId: id, details: {}, at: new Date(at) });
      if (unfinished) active.push({ _id: id, owner: null, generation: 0, renewedAt: new Date() });
      if (i === size - 1) liveRun = id;
    }
    await Promise.all([
      insertInBatches(Run.collection as never, runs, { ordered: false }),
      insertInBatches(RunEvent.collection as never, events, { ordered: false }),
      insertInBatches(AuditEvent.collection as never, audit, { ordered: false }),
      active.length ? RunLease.collection.insertMany(active as never[], { ordered: false }) : Promise.resolve(),
    ]);
  }
  console.log(`  seeded ${size} runs, ${size * EVENTS_PER_RUN} events, ${size} audit rows on ${database.kind} in ${((Date.now() - started) / 1000).toFixed(1)} s`);

  const models = database.db.models;
  const leases = createRunLeases(models, { profile: database.db.profile, serverTime: database.db.serverTime });
  const eventLog = createEventLog(models, { finished: leases.finished });
  const runs = createRunStore({ models, eventLog, leases });
  const audit = createAuditLog(models, createLogger({ level: 'error' }));
  const working = { type: 'status', final: false, status: status('working') } as const;
  return {
    size,
    kind: database.kind,
    liveRun,
    paths: {
      'eventLog.append (insert + head projection)': () => eventLog.append(liveRun, working as never),
      'eventLog.readAfter (replay the last 2)': async () => {
        const tail = await eventLog.readTail(liveRun);
        const events = await eventLog.readAfter(liveRun, tail.seq - 2);
        if (events.length !== 2) throw new Error(`replay returned ${events.length} events`);
      },
      'Run.findById': () => Run.findById(liveRun).lean(),
      'recovery pass (leases.orphans, local + remote)': () => Promise.all([leases.orphans({ remote: false }), leases.orphans({ remote: true })]),
      'runs page (newest 50)': async () => {
        const page = await runs.list({ limit: 50 });
        if (page.items.length !== 50) throw new Error('short runs page');
      },
      'runs page 2 (before cursor)': async () => {
        const first = await runs.list({ limit: 50 });
        await runs.list({ limit: 50, before: first.nextBefore });
      },
      'ListTasks (one client, newest 50, totalSize)': async () => {
        const page = await runs.listOwned({ type: 'a2a', id: 'client' } as never, { pageSize: 50 });
        if (page.items.length !== 50) throw new Error('short task list');
      },
      'audit page (newest 50)': async () => {
        const page = await audit.list({ limit: 50 });
        if (page.items.length !== 50) throw new Error('short audit page');
      },
    },
    stop: () => database.stop(),
  };
}

const fixtures: Fixture[] = [];
try {
  for (const size of SIZES) fixtures.push(await seed(size));
  const names = Object.keys(fixtures[0]!.paths);
  const timings = new Map<string, number[][]>(names.map((name) => [name, fixtures.map(() => [])]));
  // Interleaved: each iteration runs every path on every size in turn, so noise hits all alike.
  for (let i = 0; i < ITERATIONS + 3; i++) {
    for (const name of names) {
      for (const [index, fixture] of fixtures.entries()) {
        const startedAt = performance.now();
        await fixture.paths[name]!();
        if (i >= 3) timings.get(name)![index]!.push(performance.now() - startedAt);
      }
    }
  }
  const smallest = SIZES[0]!;
  const largest = SIZES[SIZES.length - 1]!;
  console.log(`\ncost against history on ${fixtures[0]!.kind} (p50 over ${ITERATIONS} interleaved iterations; goal: ${largest}/${smallest} ratio <= ${GOAL})`);
  console.log(`  ${'path'.padEnd(48)}${SIZES.map((s) => `${s}`.padStart(11)).join('')}   ratio`);
  let failed = 0;
  for (const name of names) {
    const p50s = timings.get(name)!.map((values) => percentile(values, 50));
    const ratio = p50s[p50s.length - 1]! / p50s[0]!;
    const figure = recordFigure({ name: `${name}: p50 ratio ${largest}/${smallest}`, value: ratio, goal: { op: '<=', target: GOAL }, note: p50s.map((ms, index) => `${SIZES[index]}: ${ms.toFixed(2)} ms`).join(', ') });
    if (!figure.met) failed++;
    console.log(`  ${name.padEnd(48)}${p50s.map((ms) => `${ms.toFixed(2)} ms`.padStart(11)).join('')}   ${ratio.toFixed(2)}${figure.met ? '' : '  NOT met'}`);
  }
  console.log(failed ? `  ${failed} row(s) above the goal` : '  every row within the goal');
} finally {
  for (const fixture of fixtures) await fixture.stop();
}
