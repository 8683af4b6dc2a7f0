/**
 * A send on the same trivial agent (answer = a one-line echo), over loopback HTTP: our server
 * (bearer JWT verified per call, durable run and event log in MongoDB), over A2A v0.3
 * (`message/send`) and over v1.0 (`SendMessage`), each against the @a2a-js/sdk 1.x server with its
 * in-memory task store answering `SendMessage`, interleaved. Goals: at most 6 database round
 * trips per send (counted on the wire), p50 <= 10 ms and a latency ratio <= 5 on the embedded default.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { startA2aHost } from '../helpers/a2a.ts';
import { benchDatabase } from './bench-environment.ts';
import { percentile, report, sideBySide } from './harness.ts';
import { commandsBetween, startWireCounter } from './wire-counter.ts';
import { cpuOfDescendants, cpuPerUnit } from './process-cpu.ts';
import { recordFigure, verdict } from './results.ts';
import { listenSdkEcho } from './sdk-echo-server.ts';

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 150);

const database = await benchDatabase('bench_a2a_send');
const { url: sdkUrl, server: sdkServer } = await listenSdkEcho();

// A first service reaches the database through a counting proxy: round trips per send are
// measured on the wire. The timed comparison then runs on a second one connected directly (the
// proxy's extra hop would count against us).
const wire = await startWireCounter({ host: database.db.connection.host, port: database.db.connection.port });
const directUri = `mongodb://${database.db.connection.host}:${database.db.connection.port}/${database.db.connection.name}`;
// BENCH_CPU_PROF_DIR=<dir>: the service and its runtime write CPU profiles there when they stop.
const profile = process.env.BENCH_CPU_PROF_DIR
  ? { NODE_OPTIONS: `--require ${new URL('./cpu-profile-preload.cjs', import.meta.url).pathname}`, CPU_PROFILE_DIR: process.env.BENCH_CPU_PROF_DIR }
  : undefined;
// Both services open the same sealed signing key, so they share a master key.
const shared = { SERVICE_MASTER_KEY: randomBytes(32).toString('base64') };
const counted = await startA2aHost(database.db, { mongodbUri: `mongodb://127.0.0.1:${wire.port}/${database.db.connection.name}`, scope: '@bench', env: shared });
let timed: Awaited<ReturnType<typeof startA2aHost>> | undefined;

try {
  /** v0.3 `message/send`: the answer is the Task. */
  const send = async (url: string, bearer: string | null) => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'message/send', params: { message: { kind: 'message', messageId: randomUUID(), role: 'user', parts: [{ kind: 'text', text: 'Echo this. Now.' }] } } }),
    });
    const body = (await response.json()) as { result?: { status: { state: string } } };
    if (body.result?.status.state !== 'completed') throw new Error(`unexpected reply: ${JSON.stringify(body)}`);
  };
  /** v1.0 `SendMessage`: the answer is `{ task }`. */
  const sendV1 = async (url: string, bearer: string | null) => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'Echo this. Now.' }] } } }),
    });
    const body = (await response.json()) as { result?: { task?: { status: { state: string } } } };
    if (body.result?.task?.status.state !== 'TASK_STATE_COMPLETED') throw new Error(`unexpected reply: ${JSON.stringify(body)}`);
  };
  const sample = Number(process.env.BENCH_COUNTED_SENDS ?? 100);
  for (let i = 0; i < 5; i++) await send(`${counted.service.url}/api/a2a`, counted.token);
  const before = wire.snapshot();
  const cpuBefore = cpuOfDescendants();
  const started = performance.now();
  const split: { total: number; db: number }[] = [];
  for (let i = 0; i < sample; i++) {
    const t0 = performance.now();
    await send(`${counted.service.url}/api/a2a`, counted.token);
    const t1 = performance.now();
    split.push({ total: t1 - t0, db: wire.busyBetween(t0, t1) });
  }
  const elapsed = performance.now() - started;
  const cpu = cpuPerUnit(cpuBefore, cpuOfDescendants(), sample);
  const during = commandsBetween(before, wire.snapshot());
  // The service's background passes (run recovery every second) run meanwhile: count them over an
  // idle stretch as long as the sends took, and take them out.
  const idleFrom = wire.snapshot();
  await new Promise((resolve) => setTimeout(resolve, elapsed));
  const idle = commandsBetween(idleFrom, wire.snapshot());
  const perSend = new Map([...during].map(([name, count]) => [name, Math.max(0, count - (idle.get(name) ?? 0)) / sample] as const));
  const total = [...perSend.values()].reduce((a, b) => a + b, 0);
  const roundTripsFigure = recordFigure({ name: 'database round trips per message/send', value: total, goal: { op: '<=', target: 6 } });
  console.log(`\ndatabase round trips per message/send (commands on the wire over ${sample} sends, less the background passes of an idle stretch as long): ${total.toFixed(1)} (goal <= 6: ${verdict(roundTripsFigure)})`);
  console.log(`  ${[...perSend].map(([name, count]) => `${name} ${count.toFixed(2)}`).join(', ')}; background while idle: ${[...idle].map(([name, count]) => `${name} ${count}`).join(', ') || 'none'}`);
  const dbP50 = percentile(split.map((x) => x.db), 50);
  const restP50 = percentile(split.map((x) => x.total - x.db), 50);
  console.log(`  per send through the proxy (p50): ${percentile(split.map((x) => x.total), 50).toFixed(1)} ms in all, the database busy ${dbP50.toFixed(1)} ms, everything else ${restP50.toFixed(1)} ms`);
  console.log(`  CPU per send (ms, from /proc): ${[...cpu].filter(([name]) => name !== 'other').map(([name, ms]) => `${name} ${ms.toFixed(2)}`).join(', ')}`);
  // The same count for streaming sends (v1.0 SendStreamingMessage, read to its final frame), one after another.
  const stream = async (url: string, bearer: string | null) => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendStreamingMessage', params: { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'Echo this. Now.' }] } } }),
    });
    const text = await response.text();
    if (!text.includes('TASK_STATE_COMPLETED')) throw new Error(`unexpected stream: ${text.slice(0, 300)}`);
  };
  const streamsFrom = wire.snapshot();
  const streamsStarted = performance.now();
  for (let i = 0; i < sample; i++) await stream(`${counted.service.url}/api/a2a`, counted.token);
  const streamsElapsed = performance.now() - streamsStarted;
  const duringStreams = commandsBetween(streamsFrom, wire.snapshot());
  const idleStreamsFrom = wire.snapshot();
  await new Promise((resolve) => setTimeout(resolve, streamsElapsed));
  const idleStreams = commandsBetween(idleStreamsFrom, wire.snapshot());
  const perStream = new Map([...duringStreams].map(([name, count]) => [name, Math.max(0, count - (idleStreams.get(name) ?? 0)) / sample] as const));
  const streamTotal = [...perStream.values()].reduce((a, b) => a + b, 0);
  recordFigure({ name: 'database round trips per SendStreamingMessage (read to its end)', value: streamTotal });
  console.log(`database round trips per SendStreamingMessage read to its end (${sample} one after another): ${streamTotal.toFixed(2)}`);
  console.log(`  ${[...perStream].map(([name, count]) => `${name} ${count.toFixed(2)}`).join(', ')}`);
  await counted.service.stop();

  timed = await startA2aHost(database.db, { mongodbUri: directUri, scope: '@bench', env: { ...shared, ...profile } });
  const { service, token } = timed;

  const sdkName = '@a2a-js/sdk 1.x DefaultRequestHandler + InMemoryTaskStore (SendMessage)';
  const v1 = await sideBySide(
    'A2A v1.0 SendMessage on a trivial agent',
    { iterations: ITERATIONS, warmup: 10 },
    { name: sdkName, run: () => sendV1(sdkUrl, null) },
    { name: 'our /api/a2a over v1.0 SendMessage (JWT, durable run + event log)', run: () => sendV1(`${service.url}/api/a2a`, token) },
  );
  console.log(`  database: ${database.kind}`);
  report(v1, 5);
  console.log(`  ours (v1.0) p50: ${percentile(v1.candidateMs, 50).toFixed(1)} ms`);
  const result = await sideBySide(
    'A2A v0.3 message/send on a trivial agent (baseline: the SDK 1.x server over v1.0)',
    { iterations: ITERATIONS, warmup: 10 },
    { name: sdkName, run: () => sendV1(sdkUrl, null) },
    { name: 'our /api/a2a over v0.3 message/send (JWT, durable run + event log)', run: () => send(`${service.url}/api/a2a`, token) },
  );
  const latencyRatio = report(result, 5);
  const p50 = percentile(result.candidateMs, 50);
  const p50Figure = recordFigure({ name: 'ours (v0.3 message/send) p50', value: p50, unit: 'ms', goal: { op: '<=', target: 10 } });
  console.log(`  ours p50: ${p50.toFixed(1)} ms (goal on the embedded default <= 10 ms: ${verdict(p50Figure)})`);
  const throughputFigure = recordFigure({ name: 'throughput ratio ours/sdk (v0.3 message/send)', value: 1 / latencyRatio, goal: { op: '>=', target: 1 } });
  console.log(`  throughput: ours ${(1000 / percentile(result.candidateMs, 50)).toFixed(0)}/s, sdk ${(1000 / percentile(result.baselineMs, 50)).toFixed(0)}/s; ratio ours/sdk ${(1 / latencyRatio).toFixed(2)} (goal >= 1.0: ${verdict(throughputFigure)})`);
} finally {
  await counted.service.stop();
  await timed?.service.stop();
  await wire.close();
  sdkServer.close();
  await database.stop();
}
