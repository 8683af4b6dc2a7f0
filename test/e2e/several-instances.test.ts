import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { runEventsAfter } from '@service/core/db';
import { findFreePort } from '@service/core/net';
import { useTestDatabase } from '@service/core/testing';
import { testServices } from '@service/core/testing/services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startA2aHost } from '../helpers/a2a.ts';
import { nginxSkipReason, PROXY_SOURCE_ADDRESS, startNginx, type RunningNginx } from '../helpers/nginx.ts';
import { startService, type RunningService } from '../helpers/service-process.ts';
import { readSseFrames } from '../helpers/sse.ts';

/**
 * Two web processes on one database behind a real nginx (issue 28, item 3): requests are spread
 * over both, a cut stream resumes on the other with Last-Event-ID, a run whose process is killed
 * goes on in the other, sign-in limits hold for both together, and the client address is the one
 * nginx forwards. Skipped without Debian's nginx (scripts/install-test-deps.sh installs it, CI has it).
 */
const skip = nginxSkipReason();
const t = useTestDatabase();
let a: RunningService;
let b: RunningService;
let proxy: RunningNginx;
let token: string;

const upstreamOf = (service: RunningService) => new URL(service.url).host;

beforeAll(async () => {
  if (skip) return;
  const port = await findFreePort();
  // One deployment: the same canonical origin (nginx's) and the same secrets in every instance;
  // each believes X-Forwarded-For from nginx's address only.
  const shared = {
    SERVICE_BASE_URL: `http://127.0.0.1:${port}`,
    SERVICE_MASTER_KEY: randomBytes(32).toString('base64'),
    SERVICE_SESSION_SECRET: randomBytes(32).toString('base64url'),
    SERVICE_BRIDGE_TOKEN: randomBytes(32).toString('base64url'),
    SERVICE_TRUSTED_PROXIES: PROXY_SOURCE_ADDRESS,
    SERVICE_LLM_SCRIPTED_DELAY_MS: '1000',
  };
  const host = await startA2aHost(t.db, { mongodbUri: t.uri, scope: '@acme', env: shared });
  ({ service: a, token } = host);
  b = await startService({ mongodbUri: t.uri, env: host.env });
  proxy = await startNginx({ upstreams: [upstreamOf(a), upstreamOf(b)], port });
}, 180_000);

afterAll(async () => {
  await Promise.all([proxy?.stop(), a?.stop(), b?.stop()]);
});

const rpc = async (method: string, params: unknown) => {
  const response = await fetch(`${proxy.url}/api/a2a`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  return (await response.json()) as { result?: { id: string; status: { state: string } }; error?: { code: number; message: string } };
};
const message = (text: string) => ({ kind: 'message', messageId: crypto.randomUUID(), role: 'user', parts: [{ kind: 'text', text }] });
const leaseOwner = async (runId: string) => ((await t.db.models.RunLease.collection.findOne({ _id: runId as never }))?.owner as string | null | undefined) ?? null;
const stateOf = async (runId: string) => (await rpc('tasks/get', { id: runId })).result?.status.state;

interface Frame {
  id: number;
  result: { kind: string; final?: boolean; status?: { state: string } };
}

/** message/stream through nginx; reads frames until `stopAfter` arrived (then drops the connection) or the stream ends. */
async function stream(body: unknown, lastEventId: number | null, stopAfter = Infinity): Promise<Frame[]> {
  const controller = new AbortController();
  const response = await fetch(`${proxy.url}/api/a2a`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, ...(lastEventId !== null ? { 'last-event-id': String(lastEventId) } : {}) },
    body: JSON.stringify(body),
    signal: controller.signal,
  });
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  try {
    // Frames without an id (none are sent on these streams) would not be resumable: left out.
    return (await readSseFrames(response, stopAfter)).flatMap((frame) => (frame.id === null ? [] : [{ id: frame.id, result: (frame.data as { result: Frame['result'] }).result }]));
  } finally {
    controller.abort();
  }
}

/** A sign-in form posted from a chosen loopback address (the "client machine"), with any X-Forwarded-For it likes. */
function signInFrom(url: string, localAddress: string, form: Record<string, string>, forwardedFor?: string): Promise<number> {
  const body = new URLSearchParams(form).toString();
  return new Promise((resolve, reject) => {
    const request = http.request(`${url}/sign-in`, { method: 'POST', localAddress, agent: false, headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body), ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}) } }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.on('error', reject);
    request.end(body);
  });
}

const failedSignIns = async (email: string) =>
  (await t.db.models.AuditEvent.find({ action: 'auth.sign_in.failed', resourceId: email }).lean()).map((row) => row.details as { address: string; reason: string });

describe.skipIf(skip)(`several instances behind nginx${skip ? ` (skipped: ${skip})` : ''}`, () => {
  it('spreads sends over both instances: each runs the tasks it received', async () => {
    const before = proxy.accessLog().length;
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const sent = await rpc('message/send', { message: message(`Spread me ${i}.`), configuration: { blocking: false } });
      expect(sent.result, JSON.stringify(sent)).toBeDefined();
      ids.push(sent.result!.id);
    }
    const upstreams = proxy.accessLog().slice(before).filter((line) => line.path === '/api/a2a').map((line) => line.upstream);
    expect(new Set(upstreams)).toEqual(new Set([upstreamOf(a), upstreamOf(b)]));
    // The process that took a send runs its task: the run leases name both web processes.
    const owners = await Promise.all(ids.map(async (id) => {
      await expect.poll(() => leaseOwner(id), { timeout: 10_000, interval: 50 }).not.toBeNull();
      return Number((await leaseOwner(id))!.split(':')[0]);
    }));
    expect(new Set(owners)).toEqual(new Set([a.pid, b.pid]));
    for (const id of ids) await expect.poll(() => stateOf(id), { timeout: 60_000, interval: 200 }).toBe('completed');
  });

  it('resumes a stream cut on one instance on the other with Last-Event-ID: every event once, in order', async () => {
    const body = { jsonrpc: '2.0', id: 1, method: 'message/stream', params: { message: message('Replay me across instances. Exactly once.') } };
    const before = proxy.accessLog().length;
    // Unbuffered: the first frames arrive while the run still works.
    const first = await stream(body, null, 2);
    expect(first.map((f) => f.id)).toEqual([1, 2]);
    expect(first.some((f) => f.result.final)).toBe(false);
    const second = await stream(body, first.at(-1)!.id);
    await expect.poll(() => proxy.accessLog().length - before, { timeout: 5_000, interval: 50 }).toBeGreaterThanOrEqual(2);
    const [cut, resumed] = proxy.accessLog().slice(before).filter((line) => line.path === '/api/a2a');
    expect(cut!.upstream).not.toBe(resumed!.upstream);
    const full = await stream(body, 0);
    const seen = [...first, ...second];
    expect(seen.map((f) => f.id)).toEqual(full.map((f) => f.id));
    expect(seen.map((f) => f.result)).toEqual(full.map((f) => f.result));
    expect(full.map((f) => f.id)).toEqual(full.map((_, i) => i + 1));
    expect(full.at(-1)!.result).toMatchObject({ final: true, status: { state: 'completed' } });
  });

  it('counts sign-in guesses spread over both instances against one limit, by the address nginx forwards', async () => {
    const email = 'guessed@example.com';
    await testServices(t.db).users.create({ email, password: 'correct horse battery', role: 'admin' });
    const before = proxy.accessLog().length;
    const statuses: number[] = [];
    // From 127.0.0.5, with a made-up X-Forwarded-For: nginx appends the real address, and that is what counts.
    for (let i = 0; i < 7; i++) statuses.push(await signInFrom(proxy.url, '127.0.0.5', { email, password: `wrong password ${i}`, redirectTo: '/administration' }, '198.51.100.66'));
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429]);
    const upstreams = proxy.accessLog().slice(before).filter((line) => line.path === '/sign-in').map((line) => line.upstream);
    expect(new Set(upstreams)).toEqual(new Set([upstreamOf(a), upstreamOf(b)]));
    // The right password from another client address still signs in (only the pair is refused).
    expect(await signInFrom(proxy.url, '127.0.0.6', { email, password: 'correct horse battery', redirectTo: '/administration' })).toBe(302);

    await expect.poll(async () => (await failedSignIns(email)).length, { timeout: 10_000, interval: 100 }).toBe(6);
    const rows = await failedSignIns(email);
    expect(rows.filter((row) => row.reason === 'invalid_credentials').map((row) => row.address)).toEqual(Array(5).fill('127.0.0.5'));
    expect(rows.filter((row) => row.reason === 'throttled').map((row) => row.address)).toEqual(['127.0.0.5']);
  });

  it('ignores X-Forwarded-For from a client that is not the trusted proxy', async () => {
    const email = 'direct@example.com';
    expect(await signInFrom(a.url, '127.0.0.7', { email, password: 'a wrong password', redirectTo: '/administration' }, '198.51.100.77')).toBe(401);
    await expect.poll(async () => (await failedSignIns(email)).map((row) => row.address), { timeout: 10_000, interval: 100 }).toEqual(['127.0.0.7']);
  });

  it('continues a run on the other instance when the one running it is killed', async () => {
    const sent = await rpc('message/send', { message: message('Take your time. Then answer.'), configuration: { blocking: false } });
    const runId = sent.result!.id;
    await expect.poll(() => leaseOwner(runId), { timeout: 10_000, interval: 50 }).not.toBeNull();
    const ownerPid = Number((await leaseOwner(runId))!.split(':')[0]);
    const [owner, survivor] = ownerPid === a.pid ? [a, b] : [b, a];
    expect(owner.pid).toBe(ownerPid);
    await owner.kill();

    // nginx skips the dead process; the survivor takes the lapsed lease over and finishes the run.
    await expect.poll(() => stateOf(runId), { timeout: 60_000, interval: 250 }).toBe('completed');
    const events = (await t.db.models.RunEvent.find({ _id: runEventsAfter(runId, 0) }).sort({ _id: 1 }).lean()).map((row) => ({ generation: row.generation, event: JSON.parse(row.event) as { type: string; final?: boolean; status?: { state: string } } }));
    expect(events.filter((e) => e.event.final)).toHaveLength(1);
    // The last step's record is stored with the ending, after it (internal; callers never see it).
    const visible = events.filter((e) => e.event.type !== 'step');
    expect(visible.at(-1)!.event).toMatchObject({ final: true, status: { state: 'completed' } });
    expect(visible.at(-1)!.generation).toBeGreaterThan(0);
    expect(survivor.pid).not.toBe(ownerPid);
  });
});
