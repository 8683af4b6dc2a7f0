/**
 * Three web processes behind nginx against one without a proxy, on the same kind of database: the
 * throughput of blocking v0.3 `message/send`s from 32 concurrent clients and the CPU per send of
 * every process involved (web processes, their agent runtimes, the embedded database, nginx),
 * printed with the load average. No goal: on a 2-core machine three instances share the cores one
 * had, so the figure shows what the proxy and the shared database cost, not a speed-up (issue 28).
 * Each side has its own database and runs alone. Skipped (exit 0, no figures) without nginx.
 *
 *   BENCH_ITERATIONS: sends per side (default 1200), BENCH_PROXY_CLIENTS (default 32)
 */
import { randomBytes, randomUUID } from 'node:crypto';
import os from 'node:os';
import { findFreePort } from '@service/core/net';
import { startA2aHost } from '../helpers/a2a.ts';
import { nginxSkipReason, PROXY_SOURCE_ADDRESS, startNginx, type RunningNginx } from '../helpers/nginx.ts';
import { startService, type RunningService } from '../helpers/service-process.ts';
import { benchDatabase } from './bench-environment.ts';
import { percentile } from './harness.ts';
import { cpuOfDescendants, cpuPerUnit } from './process-cpu.ts';
import { recordFigure } from './results.ts';

const SENDS = Number(process.env.BENCH_ITERATIONS ?? 1200);
const CLIENTS = Number(process.env.BENCH_PROXY_CLIENTS ?? 32);
/** A side stops after this long even if it has not sent them all (bounded in count and in time). */
const MAX_SIDE_MS = 120_000;

interface Side {
  sends: number;
  errors: number;
  elapsedMs: number;
  latenciesMs: number[];
  cpu: Map<string, number>;
  load1: number;
}

const skip = nginxSkipReason();
if (skip) {
  console.log(`several-instances: skipped: ${skip}`);
  process.exit(0);
}

/** `CLIENTS` loops sending `message/send` to `url` until `SENDS` are done or time is up. */
async function drive(url: string, token: string): Promise<Side> {
  const send = async () => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'message/send', params: { message: { kind: 'message', messageId: randomUUID(), role: 'user', parts: [{ kind: 'text', text: 'Echo this. Now.' }] } } }),
    });
    const body = (await response.json()) as { result?: { status: { state: string } } };
    if (body.result?.status.state !== 'completed') throw new Error(`unexpected reply ${response.status}: ${JSON.stringify(body).slice(0, 200)}`);
  };
  // Warm both ends (connections, JIT) before counting.
  await Promise.all(Array.from({ length: CLIENTS }, () => send()));
  const latenciesMs: number[] = [];
  let started = 0;
  let errors = 0;
  let firstError: unknown;
  const cpuBefore = cpuOfDescendants();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (started < SENDS && performance.now() - t0 < MAX_SIDE_MS) {
        started++;
        const s = performance.now();
        try {
          await send();
          latenciesMs.push(performance.now() - s);
        } catch (error) {
          errors++;
          firstError ??= error;
        }
      }
    }),
  );
  const elapsedMs = performance.now() - t0;
  const sends = latenciesMs.length;
  if (firstError) console.log(`  first error: ${String(firstError)}`);
  return { sends, errors, elapsedMs, latenciesMs, cpu: cpuPerUnit(cpuBefore, cpuOfDescendants(), Math.max(1, sends)), load1: os.loadavg()[0]! };
}

const secrets = () => ({ SERVICE_MASTER_KEY: randomBytes(32).toString('base64'), SERVICE_SESSION_SECRET: randomBytes(32).toString('base64url'), SERVICE_BRIDGE_TOKEN: randomBytes(32).toString('base64url') });

async function oneInstance(): Promise<Side> {
  const database = await benchDatabase('bench_one_instance');
  let host: Awaited<ReturnType<typeof startA2aHost>> | undefined;
  try {
    host = await startA2aHost(database.db, { mongodbUri: database.uri, scope: '@bench', env: secrets() });
    return await drive(`${host.service.url}/api/a2a`, host.token);
  } finally {
    await host?.service.stop();
    await database.stop();
  }
}

async function threeBehindNginx(): Promise<Side> {
  const database = await benchDatabase('bench_three_instances');
  const services: RunningService[] = [];
  let proxy: RunningNginx | undefined;
  try {
    const port = await findFreePort();
    const env = { ...secrets(), SERVICE_BASE_URL: `http://127.0.0.1:${port}`, SERVICE_TRUSTED_PROXIES: PROXY_SOURCE_ADDRESS };
    const host = await startA2aHost(database.db, { mongodbUri: database.uri, scope: '@bench', env });
    services.push(host.service);
    services.push(...(await Promise.all([startService({ mongodbUri: database.uri, env: host.env }), startService({ mongodbUri: database.uri, env: host.env })])));
    proxy = await startNginx({ upstreams: services.map((service) => new URL(service.url).host), port });
    return await drive(`${proxy.url}/api/a2a`, host.token);
  } finally {
    await proxy?.stop();
    await Promise.all(services.map((service) => service.stop()));
    await database.stop();
  }
}

const describeSide = (name: string, side: Side) => {
  const throughput = (side.sends / side.elapsedMs) * 1000;
  const cpuTotal = [...side.cpu.values()].reduce((a, b) => a + b, 0);
  console.log(`\n${name}: ${side.sends} sends (${side.errors} errors) from ${CLIENTS} clients in ${(side.elapsedMs / 1000).toFixed(1)} s: ${throughput.toFixed(0)} sends/s, p50 ${percentile(side.latenciesMs, 50).toFixed(1)} ms, p99 ${percentile(side.latenciesMs, 99).toFixed(1)} ms (load average ${side.load1.toFixed(2)})`);
  console.log(`  CPU per send: ${cpuTotal.toFixed(2)} ms in all; ${[...side.cpu].filter(([, ms]) => ms > 0.005).map(([process, ms]) => `${process} ${ms.toFixed(2)}`).join(', ')}`);
  return { throughput, cpuTotal };
};

console.log(`several instances: ${SENDS} blocking message/send per side, ${CLIENTS} concurrent clients, ${os.cpus().length} cores, load average ${os.loadavg()[0]!.toFixed(2)} at start`);
const one = describeSide('one instance, no proxy', await oneInstance());
const threeSide = await threeBehindNginx();
const three = describeSide('three instances behind nginx', threeSide);
const cpuNote = (side: Side) => [...side.cpu].filter(([, ms]) => ms > 0.005).map(([process, ms]) => `${process} ${ms.toFixed(2)}`).join(', ');

const ratio = three.throughput / one.throughput;
recordFigure({ name: `throughput three behind nginx / one direct (${CLIENTS} clients)`, value: ratio, note: `${three.throughput.toFixed(0)} vs ${one.throughput.toFixed(0)} sends/s` });
recordFigure({ name: 'CPU per send, one instance', value: one.cpuTotal, unit: 'ms' });
recordFigure({ name: 'CPU per send, three behind nginx', value: three.cpuTotal, unit: 'ms', note: cpuNote(threeSide) });
recordFigure({ name: 'errors, three behind nginx', value: threeSide.errors });
console.log(`\nthroughput ratio three behind nginx / one direct at ${CLIENTS} clients: ${ratio.toFixed(2)}; CPU per send ${three.cpuTotal.toFixed(2)} vs ${one.cpuTotal.toFixed(2)} ms (no goal; load average now ${os.loadavg()[0]!.toFixed(2)})`);
