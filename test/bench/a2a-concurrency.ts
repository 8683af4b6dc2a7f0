/**
 * Concurrent A2A v1.0 traffic against the service and, side by side, the @a2a-js/sdk 1.x server
 * (in-memory task store, echo executor) in a process of its own:
 *
 * - a sweep of 1, 8, 32 and 128 clients each sending `SendMessage` (blocking) one after another,
 *   bounded in count and time per level: throughput, p50 and p99 each, and errors (0 required).
 *   Goals: at 32 clients at least half the SDK's throughput; at 128 clients a p99 at most twice
 *   the SDK's.
 * - 100 concurrent `SendStreamingMessage` streams, repeated (20 times; BENCH_QUICK=1: 5): the
 *   first frame's p50 at most twice the SDK's, and every stream ends with its final frame.
 *
 * The load average is printed with each level. BENCH_CPU_PROF_DIR=<dir> profiles the service.
 */
import os from 'node:os';
import { randomBytes, randomUUID } from 'node:crypto';
import { startA2aHost } from '../helpers/a2a.ts';
import { benchDatabase } from './bench-environment.ts';
import { percentile } from './harness.ts';
import { cpuOfDescendants, cpuPerUnit, descendantPids } from './process-cpu.ts';
import { recordFigure, verdict } from './results.ts';
import { startSdkEchoServer } from './sdk-echo-server.ts';

const QUICK = process.env.BENCH_QUICK === '1';
const LEVELS = (process.env.BENCH_CLIENTS ?? '1,8,32,128').split(',').map(Number);
/** Per level and side: at most this many sends, and no new send after this long. */
const MAX_SENDS = QUICK ? 600 : 2_000;
const MAX_MS = QUICK ? 4_000 : 10_000;
const STREAMS = 100;
const REPETITIONS = Number(process.env.BENCH_STREAM_REPETITIONS ?? (QUICK ? 5 : 20));
const STREAM_TIMEOUT_MS = 30_000;
const TERMINAL = new Set(['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED']);

const load = () => os.loadavg().map((x) => x.toFixed(2)).join(' ');
const body = (method: string) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'Echo this. Now.' }] } } });
const headers = (bearer: string | null) => ({ 'content-type': 'application/json', 'a2a-version': '1.0', ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) });

interface Side {
  name: string;
  url: string;
  bearer: string | null;
}

async function sendOnce(side: Side): Promise<void> {
  const response = await fetch(side.url, { method: 'POST', headers: headers(side.bearer), body: body('SendMessage') });
  const reply = (await response.json()) as { result?: { task?: { status: { state: string } } } };
  if (reply.result?.task?.status.state !== 'TASK_STATE_COMPLETED') throw new Error(`unexpected reply ${response.status}: ${JSON.stringify(reply).slice(0, 200)}`);
}

/** `clients` loops sending one after another until MAX_SENDS are started or MAX_MS have passed. */
async function sweepLevel(side: Side, clients: number) {
  const latencies: number[] = [];
  let errors = 0;
  let firstError = '';
  let started = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (started < MAX_SENDS && performance.now() - t0 < MAX_MS) {
        started++;
        const s = performance.now();
        try {
          await sendOnce(side);
          latencies.push(performance.now() - s);
        } catch (error) {
          errors++;
          firstError ||= String(error);
        }
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  return { sends: latencies.length, errors, firstError, perSecond: latencies.length / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

/** One streaming send: ms to its first frame, and whether its last frame was a terminal state before the stream closed. */
async function streamOnce(side: Side): Promise<{ firstFrameMs: number; ended: boolean }> {
  const s = performance.now();
  const signal = AbortSignal.timeout(STREAM_TIMEOUT_MS);
  let firstFrameMs = NaN;
  let lastState = '';
  try {
    const response = await fetch(side.url, { method: 'POST', headers: { ...headers(side.bearer), accept: 'text/event-stream' }, body: body('SendStreamingMessage'), signal });
    const decoder = new TextDecoder();
    let buffered = '';
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      buffered += decoder.decode(chunk, { stream: true });
      let end: number;
      while ((end = buffered.indexOf('\n\n')) >= 0) {
        const frame = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        const data = frame.split('\n').filter((line) => line.startsWith('data:')).map((line) => line.slice(5).trim()).join('\n');
        if (!data) continue;
        if (Number.isNaN(firstFrameMs)) firstFrameMs = performance.now() - s;
        const result = (JSON.parse(data) as { result?: { task?: { status?: { state?: string } }; statusUpdate?: { status?: { state?: string } } } }).result;
        lastState = result?.task?.status?.state ?? result?.statusUpdate?.status?.state ?? lastState;
      }
    }
  } catch {
    return { firstFrameMs, ended: false };
  }
  return { firstFrameMs, ended: TERMINAL.has(lastState) };
}

async function streamRound(side: Side) {
  const results = await Promise.all(Array.from({ length: STREAMS }, () => streamOnce(side)));
  return { firstFrames: results.map((r) => r.firstFrameMs).filter((ms) => !Number.isNaN(ms)), unended: results.filter((r) => !r.ended).length };
}

const database = await benchDatabase('bench_a2a_concurrency');
const profile: Record<string, string> = process.env.BENCH_CPU_PROF_DIR
  ? { NODE_OPTIONS: `--require ${new URL('./cpu-profile-preload.cjs', import.meta.url).pathname}`, CPU_PROFILE_DIR: process.env.BENCH_CPU_PROF_DIR }
  : {};
const sdk = await startSdkEchoServer();
const host = await startA2aHost(database.db, { mongodbUri: `${database.uri}${process.env.BENCH_URI_QUERY ?? ''}`, scope: '@bench', env: { SERVICE_MASTER_KEY: randomBytes(32).toString('base64'), ...profile } });
try {
  const sdkSide: Side = { name: 'sdk', url: sdk.url, bearer: null };
  const ours: Side = { name: 'ours', url: `${host.service.url}/api/a2a`, bearer: host.token };
  for (let i = 0; i < 20; i++) await Promise.all([sendOnce(sdkSide), sendOnce(ours)]);
  /** CPU of the service's processes (web, runtime, database): the SDK server's are left out. */
  const sdkPids = new Set([sdk.pid, ...descendantPids(sdk.pid)]);
  const serviceCpu = () => new Map([...cpuOfDescendants()].filter(([pid, { name }]) => !sdkPids.has(pid) && name !== 'other'));
  console.log(`database: ${database.kind}; ${os.cpus().length} cores; load average at start ${load()}`);
  console.log(`\nconcurrency sweep (SendMessage, blocking; at most ${MAX_SENDS} sends or ${MAX_MS / 1000} s per level and side)`);
  console.log('clients | sdk sends/s p50 p99 (ms) | ours sends/s p50 p99 (ms) | ours CPU/send (ms) | ratio ours/sdk | errors sdk/ours | load');
  let errorsTotal = 0;
  for (const clients of LEVELS) {
    const base = await sweepLevel(sdkSide, clients);
    const cpuBefore = serviceCpu();
    const cand = await sweepLevel(ours, clients);
    const cpu = [...cpuPerUnit(cpuBefore, serviceCpu(), Math.max(1, cand.sends)).values()].reduce((a, b) => a + b, 0);
    errorsTotal += base.errors + cand.errors;
    const ratio = cand.perSecond / base.perSecond;
    console.log(`${String(clients).padStart(7)} | ${base.perSecond.toFixed(0)} ${base.p50.toFixed(1)} ${base.p99.toFixed(1)} | ${cand.perSecond.toFixed(0)} ${cand.p50.toFixed(1)} ${cand.p99.toFixed(1)} | ${cpu.toFixed(2)} | ${ratio.toFixed(2)} | ${base.errors}/${cand.errors} | ${load()}`);
    if (cand.firstError || base.firstError) console.log(`  first error: ${cand.firstError || base.firstError}`);
    if (cand.errors) console.log(`  the service's last output lines:\n${host.service.output().split('\n').slice(-15).join('\n')}`);
    recordFigure({ name: `${clients} clients: throughput ratio ours/sdk`, value: ratio, ...(clients === 32 ? { goal: { op: '>=', target: 0.5 } } : {}), note: `${cand.perSecond.toFixed(0)} vs ${base.perSecond.toFixed(0)} sends/s` });
    recordFigure({ name: `${clients} clients: p99 ratio ours/sdk`, value: cand.p99 / base.p99, ...(clients === 128 ? { goal: { op: '<=', target: 2 } } : {}), note: `p50 ${cand.p50.toFixed(1)} vs ${base.p50.toFixed(1)} ms, p99 ${cand.p99.toFixed(1)} vs ${base.p99.toFixed(1)} ms` });
  }
  const errorsFigure = recordFigure({ name: 'sweep errors', value: errorsTotal, goal: { op: '<=', target: 0 } });
  console.log(`errors in the sweep: ${errorsTotal} (goal 0: ${verdict(errorsFigure)})`);

  console.log(`\n${STREAMS} concurrent SendStreamingMessage streams, ${REPETITIONS} repetitions each side (interleaved)`);
  const firstFrames = { sdk: [] as number[], ours: [] as number[] };
  const unended = { sdk: 0, ours: 0 };
  let roundsWithUnended = 0;
  for (let round = 0; round < REPETITIONS; round++) {
    const order = round % 2 === 0 ? [sdkSide, ours] : [ours, sdkSide];
    for (const side of order) {
      const result = await streamRound(side);
      firstFrames[side.name as 'sdk' | 'ours'].push(...result.firstFrames);
      unended[side.name as 'sdk' | 'ours'] += result.unended;
      if (side === ours && result.unended > 0) roundsWithUnended++;
    }
  }
  const sdkP50 = percentile(firstFrames.sdk, 50);
  const oursP50 = percentile(firstFrames.ours, 50);
  const streamFigure = recordFigure({ name: `${STREAMS} streams: first frame p50 ratio ours/sdk`, value: oursP50 / sdkP50, goal: { op: '<=', target: 2 }, note: `${oursP50.toFixed(1)} vs ${sdkP50.toFixed(1)} ms` });
  const endedFigure = recordFigure({ name: `${STREAMS} streams: every stream ended with its final frame in all ${REPETITIONS} repetitions`, value: roundsWithUnended === 0, goal: { op: '=', target: true } });
  console.log(`  first frame p50/p99: sdk ${sdkP50.toFixed(1)}/${percentile(firstFrames.sdk, 99).toFixed(1)} ms, ours ${oursP50.toFixed(1)}/${percentile(firstFrames.ours, 99).toFixed(1)} ms; ratio ${(oursP50 / sdkP50).toFixed(2)} (goal <= 2: ${verdict(streamFigure)})`);
  console.log(`  streams without their final frame: sdk ${unended.sdk}, ours ${unended.ours} (${roundsWithUnended} of ${REPETITIONS} rounds; goal none: ${verdict(endedFigure)}); load ${load()}`);
} finally {
  await host.service.stop();
  await sdk.stop();
  await database.stop();
}
