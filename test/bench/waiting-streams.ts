/**
 * What a waiting stream costs (issue 28, ADR 0028), printed side by side with the load average:
 *
 * 1. Database commands per second while 10, 100 and 1 000 followers wait on runs another
 *    process works (a second connection with its own event log, counted on the wire), and 10 000
 *    across two such processes. Goal: the same rate per process at every count.
 * 2. Delivery delay of an appended event: to a follower in another process (the watcher's poll)
 *    and to one in the writer's process (woken at once), the same appends, p50/p99.
 * 3. Memory per open stream on the server alone: a service process holds 1 000 waiting
 *    `SubscribeToTask` SSE streams opened by this process; its RSS before and after. Goal
 *    <= 32 KiB per stream. The runs are created here and their leases held far ahead, as if a
 *    worker elsewhere were busy with them, so the streams wait and nothing ends them.
 *
 * 4. Streams at scale: 10 000 such streams across two service processes (5 000 each), memory
 *    per stream on each and the database commands per second.
 *
 *   BENCH_SSE_STREAMS=1000 (part 3), BENCH_SSE_STREAMS_SPLIT=10000 (part 4), BENCH_FOLLOWERS_MAX=10000
 *   (part 1's largest count); 0 leaves a part out
 */
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { connectDatabase, type Database } from '@service/core/db';
import { createEventLog, createRunLeases, createRunStore, type EventLog, type RunEvent } from '@service/core/runs';
import { startA2aHost } from '../helpers/a2a.ts';
import type { RunningService } from '../helpers/service-process.ts';
import { benchDatabase } from './bench-environment.ts';
import { percentile } from './harness.ts';
import { descendantPids } from './process-cpu.ts';
import { recordFigure, verdict } from './results.ts';
import { commandsBetween, startWireCounter } from './wire-counter.ts';

const SSE_STREAMS = Number(process.env.BENCH_SSE_STREAMS ?? 1_000);
const SSE_STREAMS_SPLIT = Number(process.env.BENCH_SSE_STREAMS_SPLIT ?? 10_000);
const FOLLOWERS_MAX = Number(process.env.BENCH_FOLLOWERS_MAX ?? 10_000);
const WINDOW_MS = 5_000;
/** One master key for every service process this bench starts on its database: they read each other's secrets. */
const MASTER_KEY = randomBytes(32).toString('base64');
const DELAY_SAMPLES = 200;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const load = () => os.loadavg()[0]!.toFixed(2);
const status = (state: 'working' | 'completed', final = false): RunEvent => ({ type: 'status', status: { state, timestamp: new Date().toISOString() }, final });

const database = await benchDatabase('bench_waiting_streams');
const target = new URL(database.uri);
const wire = await startWireCounter({ host: target.hostname, port: Number(target.port) });
const countedUri = `mongodb://127.0.0.1:${wire.port}${target.pathname}`;
const readers: Database[] = [];
let seeded = 0;

/** `count` runs created and working (two events each), stored in one insert per thousand. */
async function workingRuns(log: EventLog, count: number): Promise<string[]> {
  const ids = Array.from({ length: count }, () => `0190f5e4-0000-7000-8000-${String(++seeded).padStart(12, '0')}`);
  const documents = ids.flatMap((runId) => {
    const created: RunEvent = { type: 'created', runId, contextId: 'c', agent: '@bench/a', input: { id: 'm', role: 'user', parts: [] }, status: { state: 'submitted', timestamp: new Date().toISOString() } };
    return [log.eventDocument(runId, 1, created, 'submitted', 0), log.eventDocument(runId, 2, status('working'), 'working', 0)];
  });
  for (let at = 0; at < documents.length; at += 2_000) await database.db.models.RunEvent.collection.insertMany(documents.slice(at, at + 2_000) as never[], { ordered: true });
  return ids;
}

/** A follower from the start of `runId` that notes when each event reached it. */
function timedFollower(log: EventLog, runId: string, signal: AbortSignal) {
  const arrived = new Map<number, number>();
  const waiting = new Map<number, (at: number) => void>();
  const done = (async () => {
    for await (const stored of log.follow(runId, 0, signal)) {
      const at = performance.now();
      arrived.set(stored.seq, at);
      waiting.get(stored.seq)?.(at);
    }
  })();
  return {
    done,
    /** When event `seq` reached this follower. */
    at: (seq: number) => (arrived.has(seq) ? Promise.resolve(arrived.get(seq)!) : new Promise<number>((resolve) => waiting.set(seq, resolve))),
  };
}

async function untilParked(logs: EventLog[], followers: number) {
  for (let i = 0; i < 6_000; i++) {
    if (logs.reduce((sum, log) => sum + log.watching().followers, 0) === followers) return;
    await sleep(10);
  }
  throw new Error(`${followers} followers did not all start waiting`);
}

try {
  console.log(`database: ${database.kind}; load average at start ${load()}`);
  const writer = createEventLog(database.db.models);
  readers.push(await connectDatabase(countedUri), await connectDatabase(countedUri));

  // 1. Commands per second of waiting, by the number of waiting followers.
  console.log(`\n1. database commands per second while followers in other processes wait (${WINDOW_MS / 1000} s windows)`);
  console.log('   waiting  processes  commands/s  per process  load');
  const rates = new Map<number, number>();
  for (const count of [10, 100, 1_000, FOLLOWERS_MAX].filter((n, i, all) => n > 0 && all.indexOf(n) === i)) {
    const processes = count > 1_000 ? 2 : 1;
    const logs = readers.slice(0, processes).map((reader) => createEventLog(reader.models));
    const stop = new AbortController();
    const followers = (await workingRuns(writer, count)).map((runId, i) => timedFollower(logs[i % processes]!, runId, stop.signal));
    await untilParked(logs, count);
    await sleep(500);
    const before = wire.snapshot();
    const from = performance.now();
    await sleep(WINDOW_MS);
    const busy = wire.busyBetween(from, performance.now()) / WINDOW_MS;
    const commands = [...commandsBetween(before, wire.snapshot()).values()].reduce((sum, n) => sum + n, 0);
    const rate = commands / (WINDOW_MS / 1000);
    rates.set(count, rate / processes);
    console.log(`   ${String(count).padStart(7)}  ${String(processes).padStart(9)}  ${rate.toFixed(1).padStart(10)}  ${(rate / processes).toFixed(1).padStart(11)}  ${load()}   (database busy ${(busy * 100).toFixed(1)}% of the time)`);
    recordFigure({ name: `db commands/s, ${count} waiting cross-process streams (${processes} process${processes > 1 ? 'es' : ''})`, value: rate, unit: '/s' });
    stop.abort();
    await Promise.all(followers.map((f) => f.done));
  }
  for (const count of [...rates.keys()].filter((n) => n > 10)) {
    const ratio = rates.get(count)! / rates.get(10)!;
    const figure = recordFigure({ name: `db commands/s per process, ${count} vs 10 waiting streams`, value: ratio, goal: { op: '<=', target: 1.5 } });
    console.log(`   per process, ${count} vs 10 waiting: ${ratio.toFixed(2)}x (goal <= 1.5: ${verdict(figure)})`);
  }

  // 2. Delivery delay: the same appends, to a follower in another process and to one in the writer's.
  console.log(`\n2. delivery delay of an appended event (${DELAY_SAMPLES} appends, 100 other streams waiting)`);
  {
    const remote = createEventLog(readers[0]!.models);
    const stop = new AbortController();
    const background = (await workingRuns(writer, 100)).map((runId) => timedFollower(remote, runId, stop.signal));
    const [runId] = await workingRuns(writer, 1);
    const across = timedFollower(remote, runId!, stop.signal);
    const local = timedFollower(writer, runId!, stop.signal);
    await untilParked([remote], 101);
    const acrossMs: number[] = [];
    const localMs: number[] = [];
    for (let i = 0; i < DELAY_SAMPLES; i++) {
      // A random phase against the watcher's interval.
      await sleep(Math.random() * 250);
      const started = performance.now();
      const tail = await writer.append(runId!, { type: 'artifact', artifact: { id: `a${i}`, parts: [{ type: 'text', text: String(i) }] } });
      const [a, l] = await Promise.all([across.at(tail.seq), local.at(tail.seq)]);
      acrossMs.push(a - started);
      localMs.push(l - started);
    }
    const row = (name: string, ms: number[]) => `   ${name.padEnd(26)} p50 ${percentile(ms, 50).toFixed(1).padStart(6)} ms   p99 ${percentile(ms, 99).toFixed(1).padStart(6)} ms`;
    console.log(row('in the writer\'s process', localMs));
    console.log(row('in another process (poll)', acrossMs));
    console.log(`   load average ${load()}`);
    for (const [name, ms] of [['in-process', localMs], ['cross-process', acrossMs]] as const) {
      recordFigure({ name: `delivery delay p50, ${name}`, value: percentile(ms, 50), unit: 'ms' });
      recordFigure({ name: `delivery delay p99, ${name}`, value: percentile(ms, 99), unit: 'ms' });
    }
    stop.abort();
    await Promise.all([across.done, local.done, ...background.map((f) => f.done)]);
  }

  // 3. Memory per open SSE stream on a service process that only serves them.
  if (SSE_STREAMS > 0) await sseStreams(SSE_STREAMS, 1);
  // 4. Streams at scale: many more across two service processes, the database load still flat.
  if (SSE_STREAMS_SPLIT > 0) await sseStreams(SSE_STREAMS_SPLIT, 2);
} finally {
  for (const reader of readers) await reader.close();
  await wire.close();
  await database.stop();
}

/**
 * `total` waiting SubscribeToTask streams opened by this process on `processes` service processes
 * (split evenly), on runs a worker elsewhere holds: each server's memory per stream after full GC,
 * and the database commands per second of them all while the streams wait.
 */
async function sseStreams(total: number, processes: number): Promise<void> {
  const each = Math.ceil(total / processes);
  console.log(`\n${processes === 1 ? 3 : 4}. ${total} open waiting SSE streams on ${processes} service process${processes > 1 ? 'es' : ''}: memory per stream on the server alone (clients in this process)`);
  const probeDir = mkdtempSync(path.join(os.tmpdir(), 'memory-probe-'));
  const env = {
    SERVICE_MAX_CONNECTIONS: String(each + 500),
    SERVICE_MASTER_KEY: MASTER_KEY,
    NODE_OPTIONS: `--require ${new URL('./memory-probe-preload.cjs', import.meta.url).pathname}`,
    MEMORY_PROBE_DIR: probeDir,
  };
  const hosts: { service: RunningService; token: string; pid: number; runIds: string[] }[] = [];
  const streams: AbortController[] = [];
  /** Streams the server ended while they should have waited (none, when the runs stay working). */
  let ended = 0;
  try {
    const leases = createRunLeases(database.db.models, { profile: database.db.profile, serverTime: database.db.serverTime });
    const store = createRunStore({ models: database.db.models, eventLog: createEventLog(database.db.models, { finished: leases.finished }), leases });
    for (let i = 0; i < processes; i++) {
      const before = new Set(descendantPids());
      const { service, token } = await startA2aHost(database.db, { mongodbUri: countedUri, scope: '@bench', env });
      const pid = descendantPids().find((candidate) => !before.has(candidate) && readFileSync(`/proc/${candidate}/cmdline`, 'utf8').includes('build/server.js'));
      if (!pid) throw new Error('the service process was not found');
      const clientId = (JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { sub: string }).sub;
      const actor = { type: 'a2a', id: `oauth:${clientId}`, clientId, grants: { allowedAgents: ['*'], permissions: ['list', 'read', 'execute'] } } as never;
      const runIds: string[] = [];
      for (let n = 0; n < each + 100; n += 50) {
        const batch = await Promise.all(Array.from({ length: 50 }, () => store.create(actor, { agent: '@bench/summarizer', message: { id: crypto.randomUUID(), role: 'user', parts: [{ type: 'text', text: 'wait' }] }, working: true })));
        runIds.push(...batch.map(({ run }) => run.id));
        // A worker elsewhere holds them: no recovery pass takes them over (their lease lapses after 5 s), so they stay working.
        await database.db.models.RunLease.collection.updateMany({ _id: { $in: batch.map(({ run }) => run.id) } } as never, { $set: { renewedAt: new Date(Date.now() + 86_400_000) } });
      }
      hosts.push({ service, token, pid, runIds });
    }

    /** Opens a SubscribeToTask stream and resolves once its first frame (the task snapshot) arrived. */
    const open = async (host: (typeof hosts)[number], runId: string) => {
      const controller = new AbortController();
      streams.push(controller);
      const response = await fetch(`${host.service.url}/api/a2a`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${host.token}`, 'a2a-version': '1.0' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SubscribeToTask', params: { id: runId } }),
        signal: controller.signal,
      });
      if (!response.headers.get('content-type')?.startsWith('text/event-stream')) throw new Error(`not a stream: ${response.status} ${await response.text()}`);
      const reader = response.body!.getReader();
      await reader.read();
      // Keep reading (nothing should come) so the connection stays open and drained.
      void (async () => {
        for (;;) {
          if (!(await reader.read().catch(() => ({ done: true }))).done) continue;
          if (!controller.signal.aborted) ended++;
          return;
        }
      })();
    };
    /** A server's memory after two full collections (the preload answers SIGUSR2). */
    const settled = async (pid: number) => {
      const file = path.join(probeDir, `${pid}.json`);
      rmSync(file, { force: true });
      process.kill(pid, 'SIGUSR2');
      for (let i = 0; i < 500 && !existsSync(file); i++) await sleep(20);
      const usage = JSON.parse(readFileSync(file, 'utf8')) as NodeJS.MemoryUsage;
      return { rss: usage.rss, live: usage.heapUsed + usage.external };
    };
    // Warm-up: the code paths compiled, then those streams closed.
    for (const host of hosts) for (const runId of host.runIds.slice(each)) await open(host, runId);
    streams.splice(0).forEach((controller) => controller.abort());
    await sleep(2_000);
    const baselines = await Promise.all(hosts.map((host) => settled(host.pid)));
    for (const host of hosts) for (let i = 0; i < each; i += 100) await Promise.all(host.runIds.slice(i, Math.min(each, i + 100)).map((runId) => open(host, runId)));
    await sleep(2_000);
    const loaded = await Promise.all(hosts.map((host) => settled(host.pid)));
    const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
    hosts.forEach((_, i) => {
      const live = (loaded[i]!.live - baselines[i]!.live) / each / 1024;
      const rss = (loaded[i]!.rss - baselines[i]!.rss) / each / 1024;
      console.log(`   server ${i + 1}, after full GC: live (heap + external) ${mib(baselines[i]!.live)} -> ${mib(loaded[i]!.live)}, RSS ${mib(baselines[i]!.rss)} -> ${mib(loaded[i]!.rss)} with ${each} open`);
      const figure = recordFigure({ name: `server live memory (heap + external) per open waiting SSE stream, ${each} open on one of ${processes}`, value: live, unit: 'KiB', goal: { op: '<=', target: 32 } });
      recordFigure({ name: `server RSS per open waiting SSE stream, ${each} open on one of ${processes}`, value: rss, unit: 'KiB', note: 'includes what the allocator keeps after GC' });
      console.log(`   server ${i + 1}, per stream: live ${live.toFixed(1)} KiB (goal <= 32 KiB: ${verdict(figure)}), RSS ${rss.toFixed(1)} KiB`);
    });
    // Streams read their first events after their first frame: windows until the rate holds steady (the reads of opening done).
    let rate = Number.NaN;
    for (let window = 1; window <= 8; window++) {
      const commandsBefore = wire.snapshot();
      await sleep(WINDOW_MS);
      const commands = commandsBetween(commandsBefore, wire.snapshot());
      const previous = rate;
      rate = [...commands.values()].reduce((sum, n) => sum + n, 0) / (WINDOW_MS / 1000);
      console.log(`   window ${window}: ${rate.toFixed(1)} commands/s (${[...commands].map(([name, n]) => `${name} ${n}`).join(', ')})`);
      if (Math.abs(rate - previous) <= Math.max(1, 0.2 * previous)) break;
    }
    recordFigure({ name: `db commands/s, ${total} waiting SSE streams on ${processes} service process${processes > 1 ? 'es' : ''}`, value: rate, unit: '/s' });
    console.log(`   database commands/s while they wait (all services): ${rate.toFixed(1)}, ${(rate / processes).toFixed(1)} per process; load average ${load()}`);
    console.log(`   streams the server ended meanwhile: ${ended} of ${total}`);
    recordFigure({ name: `waiting SSE streams ended by the server before the client left (${total} open)`, value: ended, goal: { op: '<=', target: 0 } });
  } finally {
    streams.forEach((controller) => controller.abort());
    for (const host of hosts) await host.service.stop();
    rmSync(probeDir, { recursive: true, force: true });
  }
}
