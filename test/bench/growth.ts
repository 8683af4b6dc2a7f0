/**
 * Cost against a year of history, over real HTTP: the service (a real process) on a database
 * holding 1k runs and on ones holding 10k and 100k (4 events and one audit row each, spread over
 * a year and over many A2A clients, a few still working), each path timed on every size in turn
 * so noise hits all alike. Goal: every row's largest/smallest ratio <= 1.2.
 *
 * Servers: the one MONGODB_URI names (FerretDB 2, MongoDB), then the embedded FerretDB 1.24
 * beside it; without MONGODB_URI the embedded one alone. BENCH_SERVERS=env|embedded|env,embedded.
 *
 *   BENCH_SIZES=1000,10000,100000 (default)   BENCH_ITERATIONS=30 (default)
 */
import { randomUUID } from 'node:crypto';
import { createUserStore } from '@service/core/auth';
import { runEventId } from '@service/core/db';
import { uuidv7 } from '@service/core/ids';
import { listKeyOf } from '@service/core/runs';
import { testServices } from '@service/core/testing/services';
import { fetchAccessToken, installExampleAgents } from '../helpers/a2a.ts';
import { signInCookie, startService, type RunningService } from '../helpers/service-process.ts';
import { benchDatabase } from './bench-environment.ts';
import { percentile } from './harness.ts';
import { insertInBatches } from './insert-batches.ts';
import { recordFigure } from './results.ts';

const SIZES = (process.env.BENCH_SIZES ?? '1000,10000,100000').split(',').map(Number);
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 30);
const SERVERS = (process.env.BENCH_SERVERS ?? (process.env.MONGODB_URI ? 'env,embedded' : 'embedded')).split(',');
const EVENTS_PER_RUN = 4;
/** Runs per A2A client: the number of clients grows with the history, as it would over a year. */
const RUNS_PER_CLIENT = 100;
/** The client that holds a tenth of all runs (a busy integration). */
const HEAVY_SHARE = 0.1;
const UNFINISHED = 20;
const CHUNK = 5_000;
const REPLAY_EVENTS = 200;
const GOAL = 1.2;
const YEAR = 365 * 86_400_000;

const status = (state: string, at: number) => ({ state, timestamp: new Date(at).toISOString() });
const input = (text: string) => JSON.stringify({ id: randomUUID(), role: 'user', parts: [{ type: 'text', text }] });

interface Fixture {
  size: number;
  /** The database server, as the bench environment names it. */
  kind: string;
  service: RunningService;
  /** Access tokens (fetched again before the ten minutes they live are over). */
  token(): Promise<string>;
  heavyToken(): Promise<string>;
  sendToken(): Promise<string>;
  cookie: string;
  /** A finished run of the measured client, and one with a long log. */
  finishedRun: string;
  longRun: string;
  stop(): Promise<void>;
}

/** A run's head and events in the stored layout (runs/model.ts, db/models/run*.ts). */
function runDocuments(id: string, at: number, owner: string, state: string, events: number) {
  const head = { _id: id, contextId: randomUUID(), agent: '@bench/summarizer', state, lastSeq: events, actorType: 'a2a', actorId: owner, caller: `a2a:${owner}`, input: input('hello'), status: JSON.stringify(status(state, at)), remote: null, v: 2, createdAt: new Date(at), updatedAt: new Date(at), listKey: listKeyOf(at, id) };
  const rows = Array.from({ length: events }, (_, i) => {
    const seq = i + 1;
    const eventState = seq === events ? state : 'working';
    const event = seq === 1 ? { type: 'created', runId: id, contextId: head.contextId, agent: head.agent, input: JSON.parse(head.input), status: status('submitted', at) } : { type: 'status', final: seq === events, status: { ...status(eventState, at), message: { id: randomUUID(), role: 'agent', parts: [{ type: 'text', text: `step ${seq}` }] } } };
    return { _id: runEventId(id, seq), runId: id, seq, type: event.type, event: JSON.stringify(event), state: seq === 1 ? 'submitted' : eventState, generation: 0, at: new Date(at) };
  });
  return { head, rows };
}

async function seed(server: string, size: number): Promise<Fixture> {
  const database = await benchDatabase(`bench_growth_${size}`, server === 'embedded' ? { embedded: true } : {});
  const { db } = database;
  const started = Date.now();
  await installExampleAgents(db, '@bench', ['summarizer']);
  const admin = { type: 'ui', id: 'bench', email: 'bench@bench.test', role: 'admin' } as const;
  const clients = testServices(db).oauth.clients;
  const measured = await clients.register(admin, { name: 'measured', allowedAgents: ['*'], permissions: ['list', 'read', 'execute'] });
  const heavy = await clients.register(admin, { name: 'heavy', allowedAgents: ['*'], permissions: ['list', 'read', 'execute'] });
  // Sends come from a client of their own, so the measured client's task list stays as seeded.
  const sender = await clients.register(admin, { name: 'sender', allowedAgents: ['*'], permissions: ['list', 'read', 'execute'] });
  // The measured client has RUNS_PER_CLIENT runs at every size, spread over the year.
  const stride = Math.max(1, Math.floor(size / RUNS_PER_CLIENT));
  const ownerOf = (i: number) => {
    if (i % stride === 0) return `oauth:${measured.client.clientId}`;
    if (i % Math.round(1 / HEAVY_SHARE) === 1) return `oauth:${heavy.client.clientId}`;
    return `oauth:client-${i % stride}`;
  };
  const yearAgo = Date.now() - YEAR;
  let finishedRun = '';
  for (let from = 0; from < size; from += CHUNK) {
    const heads = [];
    const events = [];
    const audit = [];
    const leases = [];
    for (let i = from; i < Math.min(size, from + CHUNK); i++) {
      const at = yearAgo + Math.floor((i / size) * YEAR);
      const id = uuidv7(at);
      const unfinished = i >= size - UNFINISHED;
      const { head, rows } = runDocuments(id, at, ownerOf(i), unfinished ? 'working' : 'completed', EVENTS_PER_RUN);
      heads.push(head);
      events.push(...rows);
      audit.push({ actorType: 'a2a', actorId: head.actorId, action: 'a2a.message.send', resourceType: 'run', resourceId: id, details: {}, at: new Date(at) });
      if (unfinished) leases.push({ _id: id, owner: 'a-live-worker', generation: 0, renewedAt: new Date(Date.now() + YEAR) });
      if (i === stride * Math.floor(RUNS_PER_CLIENT / 2)) finishedRun = id;
    }
    await Promise.all([
      insertInBatches(db.models.Run.collection as never, heads, { ordered: false }),
      insertInBatches(db.models.RunEvent.collection as never, events, { ordered: false }),
      insertInBatches(db.models.AuditEvent.collection as never, audit, { ordered: false }),
      leases.length ? db.models.RunLease.collection.insertMany(leases as never[]) : Promise.resolve(),
    ]);
  }
  const longRun = uuidv7(yearAgo + YEAR / 2);
  const long = runDocuments(longRun, yearAgo + YEAR / 2, `oauth:${measured.client.clientId}`, 'completed', REPLAY_EVENTS);
  await db.models.Run.collection.insertOne(long.head as never);
  await insertInBatches(db.models.RunEvent.collection as never, long.rows, { ordered: false });
  await createUserStore(db.models).create({ email: 'bench@bench.test', password: 'correct horse battery staple', role: 'admin' });
  console.log(`  ${database.kind}: seeded ${size} runs, ${size * EVENTS_PER_RUN} events, ${size} audit rows in ${((Date.now() - started) / 1000).toFixed(1)} s`);

  const service = await startService({ mongodbUri: database.uri, env: { SERVICE_VENDOR_SCOPE: '@bench', SERVICE_A2A_HTTP_ENABLED: 'true', SERVICE_LOG_LEVEL: 'warn' } });
  /** A token of `client`, fetched again after five minutes. */
  const tokenOf = (client: typeof measured) => {
    let cached: { token: Promise<string>; at: number } | undefined;
    return () => {
      if (!cached || Date.now() - cached.at > 5 * 60_000) cached = { token: fetchAccessToken(`${service.url}/api/oauth/token`, client.client.clientId, client.clientSecret), at: Date.now() };
      return cached.token;
    };
  };
  return {
    size,
    kind: database.kind,
    service,
    token: tokenOf(measured),
    heavyToken: tokenOf(heavy),
    sendToken: tokenOf(sender),
    cookie: await signInCookie(service.url, 'bench@bench.test', 'correct horse battery staple'),
    finishedRun,
    longRun,
    stop: async () => {
      await service.stop();
      await database.stop();
    },
  };
}

async function rpc(fixture: Fixture, method: string, params: unknown, options: { token?: () => Promise<string>; headers?: Record<string, string> } = {}): Promise<string> {
  const response = await fetch(`${fixture.service.url}/api/a2a`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': method.includes('/') ? '0.3' : '1.0', authorization: `Bearer ${await (options.token ?? fixture.token)()}`, ...options.headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const text = await response.text();
  if (!response.ok || text.includes('"error"')) throw new Error(`${method} answered ${response.status}: ${text.slice(0, 300)}`);
  return text;
}

async function page(fixture: Fixture, path: string): Promise<void> {
  const response = await fetch(`${fixture.service.url}${path}`, { headers: { cookie: fixture.cookie } });
  const html = await response.text();
  if (response.status !== 200) throw new Error(`${path} answered ${response.status}`);
  if (!html.includes('<table')) throw new Error(`${path} shows no table`);
}

const PATHS: Record<string, (fixture: Fixture) => Promise<unknown>> = {
  'SendMessage (v1.0, blocking, a new run)': (f) => rpc(f, 'SendMessage', { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'Grow. Then answer.' }] } }, { token: f.sendToken }),
  'GetTask (v1.0, a finished run)': (f) => rpc(f, 'GetTask', { id: f.finishedRun }),
  'ListTasks first page (v1.0, 50 of a client with 100 tasks, totalSize)': async (f) => {
    const text = await rpc(f, 'ListTasks', { pageSize: 50 });
    if (!text.includes(`"totalSize":${RUNS_PER_CLIENT + 1}`)) throw new Error(`unexpected totalSize: ${text.slice(-200)}`);
  },
  'ListTasks first page (a client with a tenth of all tasks)': (f) => rpc(f, 'ListTasks', { pageSize: 50 }, { token: f.heavyToken }),
  'admin runs page (newest 50, HTML)': (f) => page(f, '/administration/runs'),
  'admin audit page (newest 50, HTML)': (f) => page(f, '/administration/audit'),
  'replay of 10 (tasks/resubscribe after Last-Event-ID)': async (f) => {
    const text = await rpc(f, 'tasks/resubscribe', { id: f.longRun }, { headers: { 'last-event-id': String(REPLAY_EVENTS - 10) } });
    const frames = text.split('\n\n').filter((frame) => /^id: /m.test(frame));
    if (frames.length !== 10) throw new Error(`replay returned ${frames.length} events`);
  },
};

async function measure(server: string): Promise<void> {
  const fixtures: Fixture[] = [];
  try {
    for (const size of SIZES) fixtures.push(await seed(server, size));
    const names = Object.keys(PATHS);
    const timings = new Map<string, number[][]>(names.map((name) => [name, fixtures.map(() => [])]));
    for (let i = 0; i < ITERATIONS + 3; i++) {
      for (const name of names) {
        for (const [index, fixture] of fixtures.entries()) {
          const startedAt = performance.now();
          await PATHS[name]!(fixture);
          if (i >= 3) timings.get(name)![index]!.push(performance.now() - startedAt);
        }
      }
    }
    const kind = fixtures[0]!.kind;
    const smallest = SIZES[0]!;
    const largest = SIZES[SIZES.length - 1]!;
    console.log(`\ncost against history over HTTP on ${kind} (p50 over ${ITERATIONS} interleaved iterations; goal: ${largest}/${smallest} ratio <= ${GOAL})`);
    console.log(`  ${'path'.padEnd(72)}${SIZES.map((s) => `${s}`.padStart(11)).join('')}   ratio`);
    for (const name of names) {
      const p50s = timings.get(name)!.map((values) => percentile(values, 50));
      const ratio = p50s[p50s.length - 1]! / p50s[0]!;
      const figure = recordFigure({ name: `${kind}: ${name}: p50 ratio ${largest}/${smallest}`, value: ratio, goal: { op: '<=', target: GOAL }, note: p50s.map((ms, index) => `${SIZES[index]}: ${ms.toFixed(1)} ms`).join(', ') });
      console.log(`  ${name.padEnd(72)}${p50s.map((ms) => `${ms.toFixed(2)} ms`.padStart(11)).join('')}   ${ratio.toFixed(2)}${figure.met ? '' : '  NOT met'}`);
    }
  } finally {
    for (const fixture of fixtures) await fixture.stop();
  }
}

for (const server of SERVERS) await measure(server);
