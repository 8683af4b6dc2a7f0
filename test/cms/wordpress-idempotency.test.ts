import { fileURLToPath } from 'node:url';
import type { Services } from '@service/core';
import { installExampleAgents, testServices, useTestDatabase } from '@service/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWordPress, type RunningWordPress } from '../helpers/wordpress.ts';

/**
 * The WordPress plugin makes a keyed REST write once: the same Idempotency-Key again (a call the
 * service made again after a crash) gets the first answer and writes nothing, counted at the site.
 */
const PLUGIN = { dir: fileURLToPath(new URL('../../cms-plugins/cms-b/service-widget/', import.meta.url)), main: 'service-widget.php' };
const t = useTestDatabase();
let wp: RunningWordPress;
let services: Services;
const admin = { type: 'ui', id: 'admin', email: 'a@acme.test', role: 'admin' } as const;
const worker = { type: 'worker', id: 'worker:test', job: 'test' } as const;

beforeAll(async () => {
  wp = await startWordPress({ plugins: [PLUGIN] });
  services = testServices(t.db, { SERVICE_VENDOR_SCOPE: '@acme' });
  await services.connectorInstances.put(admin, { connector: 'cms_b', id: 'site', name: 'Test site', siteUrl: wp.url, username: wp.username, credential: wp.applicationPassword });
}, 180_000);

afterAll(async () => {
  await wp?.stop();
});

const auth = () => `Basic ${Buffer.from(`${wp.username}:${wp.applicationPassword}`).toString('base64')}`;

async function draft(title: string): Promise<number> {
  return ((await services.primitives.call(worker, 'cms_b_post_create_draft', { instanceId: 'site', title })) as { id: number }).id;
}

function write(method: string, path: string, key: string, body?: unknown) {
  return fetch(`${wp.url}/wp-json/wp/v2${path}`, {
    method,
    headers: { authorization: auth(), 'content-type': 'application/json', 'idempotency-key': key },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
}

describe('keyed writes to a real WordPress with the plugin', () => {
  it('writes once under a key, and answers a repeat with the first answer, marked as replayed', async () => {
    const id = await draft('Before the keyed write');
    const first = await write('POST', `/posts/${id}`, 'call-once.1', { title: 'Written once' });
    const again = await write('POST', `/posts/${id}`, 'call-once.1', { title: 'Written once' });
    expect([first.status, again.status]).toEqual([200, 200]);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const [a, b] = (await Promise.all([first.json(), again.json()])) as { id: number; title: { raw: string }; modified: string }[];
    expect(b).toMatchObject({ id, title: { raw: 'Written once' }, modified: a!.modified });
    // The create, then the keyed update: the repeat wrote nothing.
    expect(await wp.writes(id)).toBe(2);
  });

  it('makes a repeat that arrives while the first is being handled wait for it: one write, the same answer twice', async () => {
    const id = await draft('Two at once');
    await wp.php(`update_option('service_test_write_delay_ms', 1500);`);
    try {
      const [first, second] = await Promise.all([write('POST', `/posts/${id}`, 'call-concurrent.1', { title: 'Both get me' }), write('POST', `/posts/${id}`, 'call-concurrent.1', { title: 'Both get me' })]);
      expect([first.status, second.status]).toEqual([200, 200]);
      expect([first.headers.get('idempotent-replayed'), second.headers.get('idempotent-replayed')].filter(Boolean)).toEqual(['true']);
    } finally {
      await wp.php(`delete_option('service_test_write_delay_ms');`);
    }
    expect(await wp.writes(id)).toBe(2);
  });

  it('refuses a key used for another request, and frees the key of a write WordPress refused', async () => {
    const id = await draft('Key reuse');
    expect((await write('POST', `/posts/${id}`, 'call-reuse.1', { title: 'First use' })).status).toBe(200);
    const other = await write('DELETE', `/posts/${id}`, 'call-reuse.1');
    expect(other.status).toBe(422);
    expect(((await other.json()) as { code: string }).code).toBe('service_widget_idempotency_mismatch');
    const refused = await write('POST', `/posts/${id}`, 'call-refused.1', { status: 'not-a-status' });
    expect(refused.status).toBe(400);
    const retried = await write('POST', `/posts/${id}`, 'call-refused.1', { title: 'After a refusal' });
    expect(retried.status).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(await wp.writes(id)).toBe(3);
    expect((await write('POST', `/posts/${id}`, 'short', { title: 'x' })).status).toBe(400);
  });

  it("keys the connector's writes with the caller's key: a primitive called again with the same key writes once", async () => {
    const id = await draft('Through the connector');
    const key = 'f'.repeat(32);
    const once = await services.primitives.call(worker, 'cms_b_post_update', { instanceId: 'site', id, title: 'Keyed by the call' }, { idempotencyKey: key });
    const twice = await services.primitives.call(worker, 'cms_b_post_update', { instanceId: 'site', id, title: 'Keyed by the call' }, { idempotencyKey: key });
    expect(twice).toEqual(once);
    expect(await wp.writes(id)).toBe(2);
    // Without a key every call writes.
    await services.primitives.call(worker, 'cms_b_post_update', { instanceId: 'site', id, title: 'Not keyed' });
    expect(await wp.writes(id)).toBe(3);
  });

  it('removes its key rows with the rest of its data on uninstall', async () => {
    const count = () => wp.php(`global $wpdb; echo (int) $wpdb->get_var("SELECT COUNT(*) FROM {$wpdb->options} WHERE option_name LIKE 'service\\\\_widget\\\\_call\\\\_%'");`);
    expect(Number(await count())).toBeGreaterThan(0);
    await wp.php(`require_once WP_PLUGIN_DIR . '/service-widget/includes/stored-data.php'; service_widget_delete_stored_data();`);
    expect(Number(await count())).toBe(0);
  });
});

describe('the site-editor example agent against the same WordPress', () => {
  it('asks before it writes, showing the field it would change, and writes once when allowed', async () => {
    await installExampleAgents(t.db, '@acme', ['summarizer', 'site-editor']);
    const id = await draft('Written by a person');
    const { run, execution } = await services.useCases.runs.start(admin, { agent: '@acme/site-editor', message: { id: crypto.randomUUID(), role: 'user', parts: [{ type: 'text', text: `use cms_b_post_update with {"instanceId":"site","id":${id},"title":"Retitled by the agent"}` }] } });
    await execution;
    const paused = (await services.runs.get(run.id))!;
    expect(paused.state).toBe('input-required');
    expect(paused.interrupt?.tool).toMatchObject({ tool: 'cms_b_post_update', kind: 'primitive', changes: [{ field: 'title', before: 'Written by a person', after: 'Retitled by the agent' }] });
    expect(paused.interrupt?.context?.changes).toBe('title: "Written by a person" → "Retitled by the agent"');
    expect(await wp.writes(id)).toBe(1);
    const { answerSeq } = await services.useCases.runs.answer(admin, run.id, { screenId: paused.interrupt!.screenId, values: { approved: true } });
    for await (const stored of services.eventLog.follow(run.id, answerSeq)) void stored;
    expect((await services.runs.get(run.id))!.state).toBe('completed');
    expect(((await services.primitives.call(worker, 'cms_b_post_get', { instanceId: 'site', id })) as { title: string }).title).toBe('Retitled by the agent');
    expect(await wp.writes(id)).toBe(2);
  });
});
