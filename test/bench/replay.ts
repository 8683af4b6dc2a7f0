/**
 * Replay cost against log length: a client that missed the last 10 events of a run reconnects
 * with Last-Event-ID. The same read on a run with N = 100 000 events and on one with N = 1 000,
 * interleaved. Goals: flat (ratio <= 1.5) and p50 <= 20 ms at N = 100 000, since the missed events
 * are one `_id` range read.
 */
import { runEventId } from '@service/core/db';
import { createEventLog } from '@service/core/runs';
import { benchDatabase } from './bench-environment.ts';
import { percentile, report, sideBySide } from './harness.ts';
import { recordFigure, verdict } from './results.ts';

const BIG = Number(process.env.BENCH_EVENTS ?? 100_000);
const SMALL = 1_000;
const MISSED = 10;

const database = await benchDatabase('bench_replay');
try {
  const { Run, RunEvent } = database.db.models;
  for (const [runId, count] of [['run-big', BIG], ['run-small', SMALL]] as const) {
    const status = { state: 'working', timestamp: new Date().toISOString() };
    // The run head as the run engine v1 wrote it: this bench predates the v2 log (ADR 0019) and is to be rewritten.
    await Run.create({ _id: runId, contextId: 'c', agent: '@bench/echo', state: 'working', lastSeq: count, actorType: 'worker', actorId: 'bench', input: { kind: 'message', messageId: 'm', role: 'user', parts: [{ kind: 'text', text: 'x' }] }, status } as never);
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
  const p50 = percentile(result.candidateMs, 50);
  const p50Figure = recordFigure({ name: `replay p50 at N = ${BIG}`, value: p50, unit: 'ms', goal: { op: '<=', target: 20 } });
  console.log(`  replay p50 at N = ${BIG}: ${p50.toFixed(1)} ms (goal <= 20 ms: ${verdict(p50Figure)})`);
} finally {
  await database.stop();
}

function assertTen(events: { seq: number }[]) {
  if (events.length !== MISSED) throw new Error(`expected ${MISSED} events, got ${events.length}`);
}
