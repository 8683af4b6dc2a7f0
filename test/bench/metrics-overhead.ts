/**
 * What metrics cost a send: two services on one database, the same trivial agent, one with
 * metrics off (the default: no meter provider, every instrument the OpenTelemetry API's no-op)
 * and one with both the Prometheus scrape and OTLP/HTTP metrics export on (every second, to a
 * local collector that takes and drops them), interleaved. Goal: metrics on cost at most 10% of a
 * send's p50, and of the web process's CPU time per send (the steadier figure on a shared machine).
 */
import { randomBytes } from 'node:crypto';
import { sendCompletedV1, startA2aHost } from '../helpers/a2a.ts';
import { startHttpRecorder } from '@service/core/testing';
import { benchDatabase } from './bench-environment.ts';
import { report, sideBySide } from './harness.ts';
import { cpuOfDescendants } from './process-cpu.ts';
import { recordFigure } from './results.ts';

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 150);
const database = await benchDatabase('bench_metrics');
const collector = await startHttpRecorder();
const collectorUrl = collector.url;
const exported = () => collector.received.filter((request) => request.url === '/v1/metrics').length;
// Both services open the same sealed signing key, so they share a master key.
const shared = { SERVICE_MASTER_KEY: randomBytes(32).toString('base64') };
const scrapeToken = randomBytes(32).toString('base64url');
const off = await startA2aHost(database.db, { mongodbUri: database.uri, scope: '@bench', env: shared });
const on = await startA2aHost(database.db, {
  mongodbUri: database.uri,
  scope: '@bench',
  // Metrics only: traces stay off, so the difference is the metrics' alone.
  env: { ...shared, SERVICE_METRICS_PROMETHEUS: 'on', SERVICE_METRICS_TOKEN: scrapeToken, OTEL_EXPORTER_OTLP_ENDPOINT: collectorUrl, OTEL_TRACES_EXPORTER: 'none', OTEL_METRIC_EXPORT_INTERVAL: '1000' },
});

try {
  // CPU time of each web process, which a busy shared machine disturbs far less than the wall clock.
  const cpuBefore = cpuOfDescendants();
  const result = await sideBySide(
    'A2A v1.0 SendMessage, metrics on vs off',
    { iterations: ITERATIONS, warmup: 10 },
    { name: 'metrics off (default)', run: () => sendCompletedV1(`${off.service.url}/api/a2a`, off.token) },
    { name: 'metrics on (Prometheus scrape and OTLP/HTTP export every 1 s)', run: () => sendCompletedV1(`${on.service.url}/api/a2a`, on.token) },
  );
  report(result, 1.1);
  const cpuAfter = cpuOfDescendants();
  const cpuPerSend = (pid: number) => ((cpuAfter.get(pid)?.ms ?? 0) - (cpuBefore.get(pid)?.ms ?? 0)) / (ITERATIONS + 10);
  const [cpuOff, cpuOn] = [cpuPerSend(off.service.pid), cpuPerSend(on.service.pid)];
  recordFigure({ name: 'web process CPU per send, metrics off (ms)', value: cpuOff });
  recordFigure({ name: 'web process CPU per send, metrics on (ms)', value: cpuOn });
  recordFigure({ name: 'web process CPU per send, ratio on / off', value: cpuOn / cpuOff, goal: { op: '<=', target: 1.1 } });
  console.log(`  web process CPU per send: ${cpuOff.toFixed(2)} ms off, ${cpuOn.toFixed(2)} ms on, ratio ${(cpuOn / cpuOff).toFixed(3)} (goal <= 1.1)`);
  const scraped = await fetch(`${on.service.url}/metrics`, { headers: { authorization: `Bearer ${scrapeToken}` } });
  const text = await scraped.text();
  const sends = /^http_server_request_duration_seconds_count\{http_request_method="POST",http_route="\/api\/a2a",http_response_status_code="200"\} (\d+)$/m.exec(text)?.[1];
  recordFigure({ name: 'OTLP metrics export requests received during the run', value: exported() });
  recordFigure({ name: 'Prometheus scrape size (bytes)', value: Buffer.byteLength(text) });
  console.log(`  metrics export requests the collector received: ${exported()}; the scrape counts ${sends ?? 'no'} sends (${Buffer.byteLength(text)} bytes)`);
  if (exported() === 0 || !sends) throw new Error(`the metered service recorded or exported nothing: the comparison would be of two services without metrics\n${on.service.output().split('\n').filter((line) => /metrics/.test(line)).join('\n')}`);
} finally {
  await off.service.stop();
  await on.service.stop();
  await collector.close();
  await database.stop();
}
