import { randomBytes, randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { Services } from '@service/core';
import { installFlowAgent, testServices, useTestDatabase } from '@service/core/testing';
import type { RunEvent } from '@service/core/runs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchAccessToken } from '../helpers/a2a.ts';
import { drupalSkipReason, skipNote, startDrupal, type DrupalSite } from '../helpers/drupal-site.ts';
import { startHoldingProxy, type HoldingProxy } from '../helpers/holding-proxy.ts';
import { startService, type RunningService } from '../helpers/service-process.ts';
import { startWordPress, type RunningWordPress } from '../helpers/wordpress.ts';

/**
 * A CMS write made by an agent's tool call happens once, whatever happens to the worker making it:
 * two built services on one database (each with its runtime process); the one running the agent
 * is killed (kill -9 of its whole process group) or stopped (SIGSTOP past its lease) after the
 * site made the write and while its answer is held back on the way. The other takes the run over
 * and makes the call again with the same key; the site (a real WordPress with the plugin, a real
 * Drupal with the tools module) answers with the first result. Writes are counted at the sites.
 */
const PLUGIN = { dir: fileURLToPath(new URL('../../cms-plugins/cms-b/service-widget/', import.meta.url)), main: 'service-widget.php' };
const t = useTestDatabase();
const masterKey = randomBytes(32).toString('base64');
const env = { SERVICE_VENDOR_SCOPE: '@acme', SERVICE_MASTER_KEY: masterKey, SERVICE_A2A_HTTP_ENABLED: 'true' };
const HOLD_MS = 7_000;
const drupalSkip = drupalSkipReason();
let wp: RunningWordPress;
let drupal: DrupalSite | null = null;
let wpProxy: HoldingProxy;
let drupalProxy: HoldingProxy | null = null;
let services: Services;
let processes: RunningService[];
/** The A2A client's credentials: each process issues tokens for its own origin (the processes here have no shared base URL). */
let caller: { clientId: string; clientSecret: string };
const admin = { type: 'ui', id: 'admin', email: 'a@acme.test', role: 'admin' } as const;
const worker = { type: 'worker', id: 'worker:test', job: 'test' } as const;

beforeAll(async () => {
  wp = await startWordPress({ plugins: [PLUGIN] });
  wpProxy = await startHoldingProxy(wp.url);
  services = testServices(t.db, env);
  await services.connectorInstances.put(admin, { connector: 'cms_b', id: 'site', name: 'WordPress', siteUrl: wpProxy.url, username: wp.username, credential: wp.applicationPassword });
  if (!drupalSkip) {
    drupal = await startDrupal();
    drupalProxy = await startHoldingProxy(drupal.siteUrl);
    await services.connectorInstances.put(admin, { connector: 'cms_a', id: 'drupal', name: 'Drupal', siteUrl: drupalProxy.url, credential: drupal.key });
  }
  // The site editor may write without asking: the crash, not the approval, is what is tested here.
  await installFlowAgent(t.db, '@acme', '@acme/site-editor', [{ kind: 'llm', id: 'edit', prompt: '{{input}}' }], [], {
    tools: [{ tool: 'cms_b_post_update', approval: 'never' }, { tool: 'cms_a_node_create_draft_revision', approval: 'never' }],
  });
  const { client, clientSecret } = await services.oauth.clients.register(admin, { name: 'caller', allowedAgents: ['*'], permissions: ['list', 'read', 'execute'] });
  processes = await Promise.all([startService({ mongodbUri: t.uri, env }), startService({ mongodbUri: t.uri, env })]);
  caller = { clientId: client.clientId, clientSecret };
}, 240_000);

afterAll(async () => {
  for (const process of processes ?? []) {
    try {
      globalThis.process.kill(-process.pid, 'SIGCONT');
    } catch {
      // Gone already.
    }
  }
  await Promise.all((processes ?? []).map((process) => process.stop()));
  await Promise.all([wpProxy?.close(), drupalProxy?.close()]);
  await Promise.all([wp?.stop(), drupal?.close()]);
});

/** Starts the site editor on `on` with `text` (answered at once: the run goes on in the background); its run id. */
async function startEdit(on: RunningService, text: string): Promise<string> {
  const token = await fetchAccessToken(`${on.url}/api/oauth/token`, caller.clientId, caller.clientSecret);
  const response = await fetch(`${on.url}/api/a2a`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', authorization: `Bearer ${token}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }], metadata: { skillId: '@acme/site-editor' } }, configuration: { returnImmediately: true } } }),
  });
  const body = (await response.json()) as { result?: { task: { id: string } }; error?: unknown };
  if (!body.result) throw new Error(JSON.stringify(body.error));
  return body.result.task.id;
}

/** The tool records of a run's log: each call and each result. */
async function toolRecords(runId: string) {
  const events = (await services.eventLog.readAfter(runId, 0)).map((stored) => stored.event as RunEvent);
  return events.flatMap((event) => (event.type === 'status' && event.tool ? [event.tool] : []));
}

/**
 * The crash: the worker running `runId` is killed or stopped once the site made the write and its
 * answer is held; the run must complete on the other process. A stopped worker is woken once it has.
 */
async function crashWhileInFlight(how: 'kill' | 'stop', held: Promise<void>, victim: number): Promise<void> {
  await held;
  const target = processes[victim]!;
  globalThis.process.kill(-target.pid, how === 'kill' ? 'SIGKILL' : 'SIGSTOP');
}

async function completed(runId: string): Promise<void> {
  await expect.poll(async () => (await services.runs.get(runId))?.state, { timeout: 60_000, interval: 500 }).toBe('completed');
}

/** After a kill, the killed process is started again, so each case has two processes. */
async function recover(how: 'kill' | 'stop', victim: number): Promise<void> {
  const target = processes[victim]!;
  if (how === 'stop') {
    globalThis.process.kill(-target.pid, 'SIGCONT');
    // Woken, it reads the held answer and tries to store it: its lease is gone, so it stops there.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    return;
  }
  await target.stop().catch(() => undefined);
  processes[victim] = await startService({ mongodbUri: t.uri, env });
}

for (const how of ['kill', 'stop'] as const) {
  describe(`the worker ${how === 'kill' ? 'killed (kill -9)' : 'stopped (SIGSTOP)'} during a CMS-writing tool call`, () => {
    it('writes the WordPress post once: the other process makes the call again with the same key and gets the first answer', async () => {
      const post = (await services.primitives.call(worker, 'cms_b_post_create_draft', { instanceId: 'site', title: `Before (${how})` })) as { id: number };
      const before = await wp.writes(post.id);
      const held = wpProxy.holdNext(({ method, path }) => method === 'POST' && path.startsWith(`/wp-json/wp/v2/posts/${post.id}`), HOLD_MS);
      const runId = await startEdit(processes[0]!, `use cms_b_post_update with {"instanceId":"site","id":${post.id},"title":"Written once (${how})"}`);
      await crashWhileInFlight(how, held, 0);
      await completed(runId);
      await recover(how, 0);
      expect(await wp.writes(post.id)).toBe(before + 1);
      const records = await toolRecords(runId);
      expect(records.map((record) => record.phase)).toEqual(['call', 'result']);
      expect(records[1]).toMatchObject({ outcome: 'ok', output: expect.objectContaining({ title: `Written once (${how})` }) });
      // Both tries carried the same key to the site.
      const keys = wpProxy.requests.filter((request) => request.method === 'POST' && request.path.startsWith(`/wp-json/wp/v2/posts/${post.id}`)).map((request) => request.key);
      expect(keys.length).toBeGreaterThanOrEqual(2);
      expect(new Set(keys).size).toBe(1);
      expect((await services.primitives.call(worker, 'cms_b_post_get', { instanceId: 'site', id: post.id })) as { title: string }).toMatchObject({ title: `Written once (${how})` });
    }, 120_000);

    it.skipIf(drupalSkip)(`makes one Drupal draft revision: the other process makes the call again with the same key and gets the first draft${skipNote(drupalSkip)}`, async () => {
      const node = drupal!.nid('42');
      const before = drupal!.revisions('42').length;
      const held = drupalProxy!.holdNext(({ method, body }) => method === 'POST' && body.includes('"tools/call"') && body.includes('node_create_draft_revision'), HOLD_MS);
      const runId = await startEdit(processes[1]!, `use cms_a_node_create_draft_revision with {"instanceId":"drupal","id":"${node}"}`);
      await crashWhileInFlight(how, held, 1);
      await completed(runId);
      await recover(how, 1);
      expect(drupal!.revisions('42')).toHaveLength(before + 1);
      const records = await toolRecords(runId);
      expect(records.map((record) => record.phase)).toEqual(['call', 'result']);
      expect(records[1]).toMatchObject({ outcome: 'ok', output: expect.objectContaining({ status: 'draft' }) });
      const keys = drupalProxy!.requests.filter((request) => request.key !== null).map((request) => request.key);
      expect(keys.length).toBeGreaterThanOrEqual(2);
      expect(new Set(keys.slice(-2)).size).toBe(1);
    }, 120_000);
  });
}
