/**
 * What tracing costs a send: two services on one database, the same trivial agent, one with
 * tracing off (the default: the OpenTelemetry API is a no-op) and one exporting every span over
 * OTLP/HTTP (protobuf, batched) to a local collector that takes and drops them, interleaved. Goal:
 * tracing on costs at most 15% of a send's p50.
 */
import { randomBytes } from 'node:crypto';
import { sendCompletedV1, startA2aHost } from '../helpers/a2a.ts';
import { startHttpRecorder } from '@service/core/testing';
import { benchDatabase } from './bench-environment.ts';
import { report, sideBySide } from './harness.ts';
import { recordFigure } from './results.ts';

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 150);
const database = await benchDatabase('bench_tracing');
const collector = await startHttpRecorder();
const collectorUrl = collector.url;
const exported = () => collector.received.filter((request) => request.url === '/v1/traces').length;
// Both services open the same sealed signing key, so they share a master key.
const shared = { SERVICE_MASTER_KEY: randomBytes(32).toString('base64') };
const off = await startA2aHost(database.db, { mongodbUri: database.uri, scope: '@bench', env: shared });
const on = await startA2aHost(database.db, { mongodbUri: database.uri, scope: '@bench', env: { ...shared, OTEL_EXPORTER_OTLP_ENDPOINT: collectorUrl, OTEL_BSP_SCHEDULE_DELAY: '500' } });

try {
  const result = await sideBySide(
    'A2A v1.0 SendMessage, tracing on vs off',
    { iterations: ITERATIONS, warmup: 10 },
    { name: 'tracing off (default)', run: () => sendCompletedV1(`${off.service.url}/api/a2a`, off.token) },
    { name: 'tracing on, every span exported over OTLP/HTTP', run: () => sendCompletedV1(`${on.service.url}/api/a2a`, on.token) },
  );
  report(result, 1.15);
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  recordFigure({ name: 'OTLP export requests received during the run (tracing on)', value: exported() });
  console.log(`  export requests the collector received: ${exported()}`);
  if (exported() === 0) throw new Error(`the traced service exported nothing: the comparison would be of two untraced services\n${on.service.output().split('\n').filter((line) => /tracing|trace collector|spans/.test(line)).join('\n')}`);
} finally {
  await off.service.stop();
  await on.service.stop();
  await collector.close();
  await database.stop();
}
