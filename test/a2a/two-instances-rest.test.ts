import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import type { Services } from '@service/core';
import { testServices, useTestDatabase } from '@service/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installExampleAgents } from '../helpers/a2a.ts';
import { startService, type RunningService } from '../helpers/service-process.ts';

interface Seen {
  method: string;
  path: string;
  contentType: string | undefined;
  lastEventId: string | undefined;
}

/**
 * A proxy in front of instance B that records every call A makes (which binding carried it), lists
 * B's HTTP+JSON interface first in its agent card (B's own card prefers JSON-RPC), and can cut an
 * event stream after a number of events, as a dropped connection would.
 */
async function peerProxy() {
  const seen: Seen[] = [];
  let target = '';
  let cutStreamAfter: number | null = null;
  const server = http.createServer((req, res) => {
    seen.push({ method: req.method ?? '', path: req.url ?? '', contentType: req.headers['content-type'], lastEventId: req.headers['last-event-id'] as string | undefined });
    const upstream = http.request(`${target}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
      if (req.url === '/.well-known/agent-card.json' && answer.statusCode === 200) {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => {
          const card = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { supportedInterfaces: { protocolBinding: string }[] };
          const rest = card.supportedInterfaces.filter((i) => i.protocolBinding === 'HTTP+JSON');
          card.supportedInterfaces = [...rest, ...card.supportedInterfaces.filter((i) => i.protocolBinding !== 'HTTP+JSON')];
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(card));
        });
        return;
      }
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      const cutAfter = (answer.headers['content-type'] ?? '').startsWith('text/event-stream') ? cutStreamAfter : null;
      if (cutAfter === null) return void answer.pipe(res);
      cutStreamAfter = null;
      // Passes whole frames through until `cutAfter` events (frames with an id) went out, then drops the connection.
      let buffer = '';
      let events = 0;
      let cut = false;
      answer.on('data', (chunk: Buffer) => {
        // A chunk already on its way when the upstream was destroyed must not follow the cut frame out.
        if (cut) return;
        buffer += chunk.toString('utf8');
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const frame = buffer.slice(0, end + 2);
          buffer = buffer.slice(end + 2);
          if (frame.startsWith('id:') && ++events === cutAfter) {
            cut = true;
            answer.destroy();
            // Dropped once the frame is out: the reader has seen event `cutAfter` and no more.
            return void res.write(frame, () => res.socket?.destroy());
          }
          res.write(frame);
        }
      });
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    forward: (to: string) => (target = to),
    cutNextStreamAfter: (events: number) => (cutStreamAfter = events),
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

const dbA = useTestDatabase();
const dbB = useTestDatabase();
const masterKeyA = randomBytes(32).toString('base64');
let b: RunningService;
let proxy: Awaited<ReturnType<typeof peerProxy>>;
/** Instance A's own code, on A's database and master key: its outbound client, remote bridge and event log. */
let localA: Services;
const adminA = { type: 'ui', id: 'admin-a', email: 'admin@acme.test', role: 'admin' } as const;

/** The A2A calls A made since `from`, as `METHOD path`. */
const a2aCalls = (from = 0) => proxy.seen.slice(from).filter((s) => s.path.startsWith('/api/a2a')).map((s) => `${s.method} ${s.path.replace(/\/tasks\/[^/:]+/, '/tasks/{id}')}`);

beforeAll(async () => {
  await installExampleAgents(dbB.db, '@globex');
  proxy = await peerProxy();
  // B's card names the proxy as its base URL, so every interface it lists is on the origin A registered.
  b = await startService({ mongodbUri: dbB.uri, env: { SERVICE_VENDOR_SCOPE: '@globex', SERVICE_A2A_HTTP_ENABLED: 'true', SERVICE_BASE_URL: proxy.url } });
  proxy.forward(b.url);
  const adminB = { type: 'ui', id: 'admin-b', email: 'admin@globex.test', role: 'admin' } as const;
  const { client, clientSecret } = await testServices(dbB.db).oauth.clients.register(adminB, { name: 'acme', allowedAgents: ['*'], permissions: ['list', 'read', 'execute'] });
  localA = testServices(dbA.db, { SERVICE_VENDOR_SCOPE: '@acme', SERVICE_MASTER_KEY: masterKeyA });
  await localA.peers.register(adminA, { id: 'globex', name: 'Globex', baseUrl: proxy.url, clientId: client.clientId, clientSecret });
});

afterAll(async () => {
  await b?.stop();
  await proxy?.close();
});

describe('instance A calls B over HTTP+JSON when B\'s card prefers it', () => {
  it('chooses B\'s HTTP+JSON interface and sends over REST', async () => {
    const card = await localA.a2aClient.card('globex');
    expect(card).toMatchObject({ binding: 'HTTP+JSON', protocol: '1.0', url: `${proxy.url}/api/a2a` });
    const from = proxy.seen.length;
    const reply = await localA.a2aClient.send('globex', { message: { id: crypto.randomUUID(), role: 'user', parts: [{ type: 'text', text: 'Rest carries this. Only rest.' }], metadata: { skillId: '@globex/summarizer' } } });
    expect(reply).toMatchObject({ kind: 'task', status: { state: 'completed' } });
    expect(a2aCalls(from)).toEqual(['POST /api/a2a/message:send']);
  });

  it('bridges a REST stream into A\'s event log, resuming with Last-Event-ID after the connection drops', async () => {
    const from = proxy.seen.length;
    proxy.cutNextStreamAfter(2);
    const run = await localA.remote.call(adminA, { peerId: 'globex', skillId: '@globex/summarizer', text: 'Streams drop. Rest resumes.' });
    expect(run.state).toBe('completed');
    const local = await localA.eventLog.readAfter(run.id, 0);
    expect(local.map((e) => e.event.type)).toEqual(['created', 'status', 'artifact', 'status']);
    // Every remote event after the opening Task once, in order, though the first connection ended after event 2.
    expect(local.slice(1).map((e) => (e.event as { metadata?: { remote?: { eventId: number } } }).metadata?.remote?.eventId)).toEqual([2, 3, 4]);
    expect(a2aCalls(from)).toEqual(['POST /api/a2a/message:stream', 'POST /api/a2a/message:stream']);
    expect(proxy.seen.slice(from).filter((s) => s.path === '/api/a2a/message:stream').map((s) => s.lastEventId)).toEqual([undefined, '2']);

    // What a restarted follower does (bridge recovery): SubscribeToTask after the last event it stored.
    const remoteTaskId = (local[1]!.event as { metadata?: { remote?: { taskId: string } } }).metadata!.remote!.taskId;
    const after = proxy.seen.length;
    const resumed = [];
    for await (const event of localA.a2aClient.resubscribe('globex', remoteTaskId, { lastEventId: 2 })) resumed.push(event);
    expect(resumed.map((e) => [e.id, e.event.type])).toEqual([[3, 'artifact'], [4, 'status']]);
    expect(proxy.seen.slice(after).map((s) => [s.method, s.path.replace(remoteTaskId, '{id}'), s.lastEventId])).toEqual([['POST', '/api/a2a/tasks/{id}:subscribe', '2']]);
  });

  it('pauses at B\'s HITL gate, has a bad answer refused and a good one taken, all over REST', async () => {
    const from = proxy.seen.length;
    const paused = await localA.remote.call(adminA, { peerId: 'globex', skillId: '@globex/editorial-review', text: 'A draft to review. It is long.' });
    expect(paused.state).toBe('input-required');
    const remoteTaskId = (paused.interrupt as unknown as { remoteRunId: string }).remoteRunId;
    expect((await dbB.db.models.Run.findById(remoteTaskId).lean())!.state).toBe('input-required');

    // B answers 400 INVALID_ARGUMENT: read as invalid params, so A's run waits for a better answer instead of failing.
    await expect(localA.remote.resume(paused.id, { screenId: 'approve-summary', values: { approved: 'not a boolean' } })).rejects.toMatchObject({ code: 'UPSTREAM_FAILED', details: { code: -32602 } });
    expect((await localA.runs.get(paused.id))!.state).toBe('input-required');

    const done = await localA.remote.resume(paused.id, { screenId: 'approve-summary', values: { approved: true, notes: 'Ship it.' } });
    expect(done.state).toBe('completed');
    expect((await dbB.db.models.Run.findById(remoteTaskId).lean())!.state).toBe('completed');
    expect(a2aCalls(from)).toEqual(['POST /api/a2a/message:stream', 'POST /api/a2a/message:stream', 'POST /api/a2a/message:stream']);
  });

  it('cancels a paused remote run with REST CancelTask, and a second cancel is refused as not cancelable there', async () => {
    const paused = await localA.remote.call(adminA, { peerId: 'globex', skillId: '@globex/editorial-review', text: 'Another draft. Never mind.' });
    const remoteTaskId = (paused.interrupt as unknown as { remoteRunId: string }).remoteRunId;
    const from = proxy.seen.length;
    expect((await localA.remote.cancel(paused.id)).state).toBe('canceled');
    expect((await dbB.db.models.Run.findById(remoteTaskId).lean())!.state).toBe('canceled');
    await expect(localA.a2aClient.cancel('globex', remoteTaskId)).rejects.toMatchObject({ details: { code: -32002 } });
    await expect(localA.a2aClient.getTask('globex', remoteTaskId)).resolves.toMatchObject({ id: remoteTaskId, status: { state: 'canceled' } });
    expect(a2aCalls(from)).toEqual(['POST /api/a2a/tasks/{id}:cancel', 'POST /api/a2a/tasks/{id}:cancel', 'GET /api/a2a/tasks/{id}']);
  });

  it('never posted JSON-RPC to B', () => {
    expect(proxy.seen.filter((s) => s.path === '/api/a2a' || s.path.startsWith('/api/a2a?'))).toEqual([]);
    expect(proxy.seen.filter((s) => s.path.startsWith('/api/a2a/')).length).toBeGreaterThan(8);
  });
});
