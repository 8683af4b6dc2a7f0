import { randomBytes } from 'node:crypto';
import type { Services } from '@service/core';
import { testServices, useTestDatabase } from '@service/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchAccessToken, installExampleAgents } from '../helpers/a2a.ts';
import { compileSource, loadExample } from '@service/core/agents';
import { stepKeyOf } from '@service/core/runs';
import { createExtensionWriter } from '@service/core/extensions';
import { startService, type RunningService } from '../helpers/service-process.ts';

const dbA = useTestDatabase();
const dbB = useTestDatabase();
const masterKeyA = randomBytes(32).toString('base64');
let a: RunningService;
let b: RunningService;
/** Instance A's own code, on A's database and master key: its outbound client and local event log. */
let localA: Services;
const adminA = { type: 'ui', id: 'admin-a', email: 'admin@acme.test', role: 'admin' } as const;

beforeAll(async () => {
  await installExampleAgents(dbB.db, '@globex');
  [a, b] = await Promise.all([
    startService({ mongodbUri: dbA.uri, env: { SERVICE_VENDOR_SCOPE: '@acme', SERVICE_MASTER_KEY: masterKeyA, SERVICE_A2A_HTTP_ENABLED: 'true' } }),
    startService({ mongodbUri: dbB.uri, env: { SERVICE_VENDOR_SCOPE: '@globex', SERVICE_A2A_HTTP_ENABLED: 'true' } }),
  ]);
  // B's admin registers a client for A; A's admin registers B as a remote peer with that secret.
  const adminB = { type: 'ui', id: 'admin-b', email: 'admin@globex.test', role: 'admin' } as const;
  const { client, clientSecret } = await testServices(dbB.db).oauth.clients.register(adminB, { name: 'acme', allowedAgents: ['*'], permissions: ['list', 'read', 'execute'] });
  localA = testServices(dbA.db, { SERVICE_VENDOR_SCOPE: '@acme', SERVICE_MASTER_KEY: masterKeyA, SERVICE_BASE_URL: a.url });
  await localA.peers.register(adminA, { id: 'globex', name: 'Globex', baseUrl: b.url, clientId: client.clientId, clientSecret });
  // The same instance registered as a peer spoken to over v0.3 only: the other pairing.
  await localA.peers.register(adminA, { id: 'globex-legacy', name: 'Globex (0.3)', baseUrl: b.url, clientId: client.clientId, clientSecret, protocol: '0.3' });
});

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
});

/** A's flow `@acme/cross-review`: the editorial review, its call step aimed at B's summarizer. */
async function installCrossReview() {
  if (await dbA.db.models.Extension.exists({ packageName: '@acme/cross-review' })) return;
  const source = loadExample('editorial-review', '@acme') as { manifest: any; flow: any };
  source.manifest.name = '@acme/cross-review';
  source.manifest.service.agentDependencies = { '@globex/summarizer': '^1.0.0' };
  source.flow.steps[0].agent = '@globex/summarizer';
  const compiled = compileSource(source);
  await createExtensionWriter(dbA.db.models).install({ source, compiled, origin: { packageName: compiled.packageName, version: compiled.version, destinationId: null, scope: '@acme', visibility: 'public', registryUrl: 'http://registry.invalid/' } });
}

describe('instance A calls agents on instance B over A2A', () => {
  it('discovers B\'s card through A\'s peer registration', async () => {
    const card = await localA.a2aClient.card('globex');
    expect(card.url).toBe(`${b.url}/api/a2a`);
    expect(card.protocol).toBe('1.0');
    expect((await localA.a2aClient.card('globex-legacy')).protocol).toBe('0.3');
    expect(card.skills.map((s) => s.id).sort()).toEqual(['@globex/editorial-review', '@globex/summarizer']);
    // The peer secret is sealed in A's database: A's running process can open it too.
    const row = await dbA.db.models.RemotePeer.findById('globex').lean();
    expect(row!.clientSecretSealed).toMatch(/^sealed\.v1\./);
  });

  it('calls a leaf agent with message/send and with a stream bridged into A\'s local event log', async () => {
    const reply = await localA.a2aClient.send('globex', { message: { id: crypto.randomUUID(), role: 'user', parts: [{ type: 'text', text: 'Two instances talk. Over HTTP.' }], metadata: { skillId: '@globex/summarizer' } } });
    expect(reply).toMatchObject({ kind: 'task', status: { state: 'completed' } });

    const run = await localA.remote.call(adminA, { peerId: 'globex', skillId: '@globex/summarizer', text: 'Bridged streams work. Locally.' });
    expect(run.state).toBe('completed');
    const local = await localA.eventLog.readAfter(run.id, 0);
    expect(local.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    expect(local.map((e) => e.event.type)).toEqual(['created', 'status', 'artifact', 'status']);
    // Each bridged event says where in the remote stream it came from.
    expect(local.slice(1).map((e) => (e.event as { metadata?: { remote?: { peerId: string; eventId: number } } }).metadata?.remote)).toEqual([2, 3, 4].map((eventId) => expect.objectContaining({ peerId: 'globex', eventId })));
    expect(run.artifacts[0]!.parts[0]).toEqual({ type: 'text', text: '[scripted] Summarize: Bridged streams work. Locally.' });
  });

  it('speaks v0.3 to a peer registered for it: send, and a stream bridged into A\'s log', async () => {
    const reply = await localA.a2aClient.send('globex-legacy', { message: { id: crypto.randomUUID(), role: 'user', parts: [{ type: 'text', text: 'Old peers talk. Still.' }], metadata: { skillId: '@globex/summarizer' } } });
    expect(reply).toMatchObject({ kind: 'task', status: { state: 'completed' } });
    const run = await localA.remote.call(adminA, { peerId: 'globex-legacy', skillId: '@globex/summarizer', text: 'Legacy bridge works. Locally.' });
    expect(run.state).toBe('completed');
    expect((await localA.eventLog.readAfter(run.id, 0)).map((e) => e.event.type)).toEqual(['created', 'status', 'artifact', 'status']);
  });

  it('runs a local flow whose call step targets an agent only B has, in A\'s default layout (its agent runtime process), with the step key as B\'s message id', async () => {
    await installCrossReview();
    const { client, clientSecret } = await localA.oauth.clients.register(adminA, { name: 'caller of A', allowedAgents: ['*'], permissions: ['list', 'read', 'execute'] });
    const token = await fetchAccessToken(`${a.url}/api/oauth/token`, client.clientId, clientSecret);
    await expect.poll(() => /agent runtime ready/.test(a.output()), { timeout: 15_000 }).toBe(true);
    const text = 'Default layout. Peer call.';
    const response = await fetch(`${a.url}/api/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0', authorization: `Bearer ${token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }], metadata: { skillId: '@acme/cross-review' } } } }),
    });
    const body = (await response.json()) as { result?: { task: { id: string; status: { state: string } } }; error?: unknown };
    expect(body.error).toBeUndefined();
    expect(body.result!.task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const runId = body.result!.task.id;
    const paused = (await localA.runs.get(runId))!;
    expect(paused.progress.outputs).toEqual({ summary: `[scripted] Summarize: ${text}` });
    // B ran it once, and the message it got carries the step's key as its id (a retried step sends the same one).
    const onB = (await dbB.db.models.Run.find({ agent: '@globex/summarizer' }).lean()).filter((row) => (JSON.parse(row.input as string) as { parts: { text: string }[] }).parts[0]?.text === text);
    expect(onB).toHaveLength(1);
    expect((JSON.parse(onB[0]!.input as string) as { id: string }).id).toBe(stepKeyOf(runId, 0, 'summary'));
    const step = (await localA.eventLog.readAfter(runId, 0)).map((stored) => stored.event).find((event) => event.type === 'step' && event.stepId === 'summary');
    expect(step).toMatchObject({ kind: 'call', remote: { peerId: 'globex', taskId: onB[0]!._id } });
  });

  it('runs a local flow whose call step targets an agent only B has, in process (no runtime), through the outbound client', async () => {
    await installCrossReview();

    const { run } = await localA.runs.create(adminA, { agent: '@acme/cross-review', message: { id: crypto.randomUUID(), role: 'user', parts: [{ type: 'text', text: 'Cross-instance call. Inside a flow.' }] } });
    await localA.executor.start(run.id);
    const paused = (await localA.runs.get(run.id))!;
    expect(paused.state).toBe('input-required');
    expect(paused.progress.outputs).toEqual({ summary: '[scripted] Summarize: Cross-instance call. Inside a flow.' });
    const onB = await dbB.db.models.Run.find({ agent: '@globex/summarizer', state: 'completed' }).lean();
    // The input is stored as JSON text (core/src/runs/stored-json.ts).
    const answeredOnB = onB.filter((run) => (JSON.parse(run.input as string) as { parts: { text: string }[] }).parts[0]?.text === 'Cross-instance call. Inside a flow.');
    expect(answeredOnB).toHaveLength(1);
    // A's step names B's task and keeps the usage B reported for it (B's scripted provider counts its call, with no tokens).
    const step = (await localA.eventLog.readAfter(run.id, 0)).map((stored) => stored.event).find((event) => event.type === 'step' && event.stepId === 'summary');
    expect(step).toMatchObject({ kind: 'call', calls: [], remote: { peerId: 'globex', taskId: answeredOnB[0]!._id, usage: { calls: 1, inputTokens: 0, outputTokens: 0 } } });
    expect((await localA.runs.get(run.id))?.usage).toBeUndefined();
  });

  it('sees a remote HITL gate as a local INTERRUPT, resumes it, and the run completes on B', async () => {
    const paused = await localA.remote.call(adminA, { peerId: 'globex', skillId: '@globex/editorial-review', text: 'A draft to review. It is long.' });
    expect(paused.state).toBe('input-required');
    const events = await localA.eventLog.readAfter(paused.id, 0);
    const interrupt = events.at(-1)!.event;
    const remoteTaskId = (interrupt as unknown as { metadata: { remote: { taskId: string } } }).metadata.remote.taskId;
    expect(interrupt).toMatchObject({ type: 'status', final: true, status: { state: 'input-required' }, interrupt: { screenId: 'approve-summary', remoteRunId: remoteTaskId } });
    expect(paused.interrupt).toMatchObject({ screenId: 'approve-summary' });
    expect((await dbB.db.models.Run.findById(remoteTaskId).lean())!.state).toBe('input-required');

    await expect(localA.remote.resume(paused.id, { screenId: 'approve-summary', values: { approved: 'not a boolean' } })).rejects.toMatchObject({ code: 'UPSTREAM_FAILED' });
    expect((await dbB.db.models.Run.findById(remoteTaskId).lean())!.state).toBe('input-required');

    const done = await localA.remote.resume(paused.id, { screenId: 'approve-summary', values: { approved: true, notes: 'Ship it.' } });
    expect(done.state).toBe('completed');
    expect((await dbB.db.models.Run.findById(remoteTaskId).lean())!.state).toBe('completed');
    const all = await localA.eventLog.readAfter(paused.id, 0);
    expect(all.map((e) => e.seq)).toEqual(all.map((_, i) => i + 1));
  });
});
