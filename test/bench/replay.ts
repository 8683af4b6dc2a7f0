/**
 * Replay cost against log length: a client that missed the last 10 events of a run reconnects
 * with Last-Event-ID. The same read on a run with N = 100 000 events and on one with N = 1 000,
 * interleaved. Goal: flat (ratio <= 1.5), since missed events are fetched by primary key.
 */
import { runEventId } from '@service/core/db';
import { createEventLog } from '@service/core/runs';
import { benchDatabase } from './bench-environment.ts';
import { report, sideBySide } from './harness.ts';

const BIG = Number(process.env.BENCH_EVENTS ?? 100_000);
const SMALL = 1_000;
const MISSED = 10;

const database = await benchDatabase('bench_replay');
try {
  const { Run, RunEvent } = database.db.models;
  for (const [runId, count] of [['run-big', BIG], ['run-small', SMALL]] as const) {
    const status = { state: 'working', timestamp: new Date().toISOString() };
    await Run.create({ _id: runId, contextId: 'c', agent: '@bench/echo', state: 'working', lastSeq: count, actorType: 'worker', actorId: 'bench', input: { kind: 'message', messageId: 'm', role: 'user', parts: [{ kind: 'text', text: 'x' }] }, status });
    for (let from = 1; from <= count; from += 5_000) {
      const batch = [];
      for (let seq = from; seq < Math.min(count + 1, from + 5_000); seq++) {
        batch.push({ _id: runEventId(runId, seq), runId, seq, kind: 'status-update', payload: { kind: 'status-update', taskId: runId, contextId: 'c', final: false, status: { state: 'working', timestamp: '2026-01-01T00:00:00Z' } }, at: new Date() });
      }
      await RunEvent.collection.insertMany(batch as never[], { ordered: false });
    }
    console.log(`  seeded ${runId}: ${count} events`);
  }
  const log = createEventLog(database.db.models);
  const result = await sideBySide(
    `replay the last ${MISSED} events (Last-Event-ID), ${BIG} vs ${SMALL} events in the log`,
    { iterations: 30, warmup: 3 },
    { name: `N = ${SMALL}`, run: async () => assertTen(await log.readAfter('run-small', SMALL - MISSED)) },
    { name: `N = ${BIG}`, run: async () => assertTen(await log.readAfter('run-big', BIG - MISSED)) },
  );
  console.log(`  database: ${database.kind}`);
  report(result, 1.5);
  if (database.kind === 'ferretdb') {
    console.log('  note: FerretDB 1.24 (SQLite) finds even an _id by scanning the table, so each lookup costs the size of the');
    console.log('        whole run_events collection (the same for both runs here): flat in N, but not cheap. On MongoDB the');
    console.log('        lookups are _id index seeks (set MONGODB_URI to measure there).');
  }
} finally {
  await database.stop();
}

function assertTen(events: { seq: number }[]) {
  if (events.length !== MISSED) throw new Error(`expected ${MISSED} events, got ${events.length}`);
}
