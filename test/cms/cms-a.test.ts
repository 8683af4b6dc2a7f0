import { randomBytes } from 'node:crypto';
import type { Services } from '@service/core';
import { testServices, useTestDatabase } from '@service/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCmsADouble, type CmsASite } from '../helpers/cms-a-double.ts';
import { drupalSkipReason, skipNote, startDrupal, type DrupalSite } from '../helpers/drupal-site.ts';

const t = useTestDatabase();
const admin = { type: 'ui', id: 'admin', email: 'a@acme.test', role: 'admin' } as const;
const worker = { type: 'worker', id: 'worker:test', job: 'test' } as const;

// The same connector code against the TypeScript double and against the Drupal module on a real
// Drupal 10.3, with and without Content Moderation (there, the fixture's node names and image URL
// are bound to the site's).
const sites = [
  ['the _mcp_tools contract double', 'double', startCmsADouble, undefined],
  ['a real Drupal 10.3 (core pending revisions)', 'real', () => startDrupal(), drupalSkipReason()],
  ['a real Drupal 10.3 (Content Moderation)', 'moderated', () => startDrupal({ moderation: true }), drupalSkipReason()],
] as const;
for (const [name, prefix, start, skip] of sites) describe.skipIf(skip)(`CMS-A primitives against ${name} over HTTP${skipNote(skip)}`, () => {
  let site: CmsASite & Partial<Pick<DrupalSite, 'nid' | 'mediaUrl'>>;
  let services: Services;
  const drupal = `${prefix}-drupal`;
  // The node a fixture name stands for, on this site.
  const nid = (name: string) => site.nid?.(name) ?? name;
  const media = (url: string) => site.mediaUrl?.(url) ?? url;
  const call = <T = any>(name: string, input: Record<string, unknown>) => services.primitives.call(worker, name, { ...input, ...('instanceId' in input ? { instanceId: input.instanceId === 'wrong-key' ? `${prefix}-wrong-key` : drupal } : {}) }) as Promise<T>;

  beforeAll(async () => {
    site = await start(`mcpkey_${randomBytes(16).toString('hex')}`);
    services = testServices(t.db, { SERVICE_VENDOR_SCOPE: '@acme' });
    await services.connectorInstances.put(admin, { connector: 'cms_a', id: drupal, name: 'Drupal site', siteUrl: site.siteUrl, credential: site.key });
    await services.connectorInstances.put(admin, { connector: 'cms_a', id: `${prefix}-wrong-key`, name: 'Wrong key', siteUrl: site.siteUrl, credential: 'not-the-key' });
  });

  afterAll(async () => {
    await site?.close();
  });

  it('status: connected with the MCP key, refused without it', async () => {
    expect(await call('cms_a_status', { instanceId: 'drupal' })).toMatchObject({ connected: true, site: site.siteName });
    expect(await call('cms_a_status', { instanceId: 'wrong-key' })).toMatchObject({ connected: false, reason: expect.stringContaining('refused the MCP key') });
    expect((await call<any[]>('cms_a_instances_list', {})).map((i) => i.id)).toEqual(expect.arrayContaining([drupal, `${prefix}-wrong-key`]));
  });

  it('reads nodes by string id (alphanumeric too) with media inline, and lists them', async () => {
    expect(await call('cms_a_node_get', { instanceId: 'drupal', id: Number(nid('42')) })).toMatchObject({ nid: nid('42'), title: 'Published title', fields: { media: [{ url: media('https://media.example.test/cover.png') }] } });
    expect(await call('cms_a_node_get', { instanceId: 'drupal', id: nid('abc123') })).toMatchObject({ nid: nid('abc123') });
    expect((await call<any[]>('cms_a_node_list', { instanceId: 'drupal', query: 'alphanumeric' })).map((n) => n.nid)).toEqual([nid('abc123')]);
    await expect(call('cms_a_node_get', { instanceId: 'drupal', id: 'nope' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('drafts, updates and publishes through a true draft revision', async () => {
    const draft = await call('cms_a_node_create_draft_revision', { instanceId: 'drupal', id: nid('abc123') });
    expect(draft).toMatchObject({ status: 'draft', publishedRevisionId: expect.any(Number) });
    await call('cms_a_node_update', { instanceId: 'drupal', id: nid('abc123'), fields: { title: 'Draft title' } });
    expect(site.published('abc123')!.title).toBe('Alphanumeric node');
    expect(await call('cms_a_node_publish', { instanceId: 'drupal', id: nid('abc123') })).toMatchObject({ status: 'published', title: 'Draft title' });
    await expect(call('cms_a_node_update', { instanceId: 'drupal', id: nid('abc123'), fields: {} })).rejects.toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringContaining('at least one field') });
    await expect(call('cms_a_node_update', { instanceId: 'drupal', id: nid('abc123'), fields: { title: 'x' } })).rejects.toMatchObject({ message: expect.stringContaining('no draft revision') });
  });

  it('the content editor writes to a new draft revision and never touches the published one', async () => {
    const publishedBefore = structuredClone(site.published('42'));
    const result = await call('cms_a_content_editor_run', { instanceId: 'drupal', id: nid('42'), task: 'set title to "Edited title"\nreplace "Teh" with "The" in body' });
    expect(result).toEqual({
      changes: [
        { field: 'title', before: 'Published title', after: 'Edited title' },
        { field: 'body', before: 'Teh body.', after: 'The body.' },
      ],
      nodeId: nid('42'),
      postId: nid('42'),
      noChanges: false,
      summary: expect.stringContaining('[scripted]'),
    });
    expect(site.published('42')).toEqual(publishedBefore);
    expect(await call('cms_a_node_get', { instanceId: 'drupal', id: nid('42') })).toMatchObject({ status: 'draft', title: 'Edited title', fields: { body: 'The body.', media: [{ alt: 'Cover' }] } });
  });

  it('a CMS error mid-way names the step and leaves the draft consistent', async () => {
    const error = await call('cms_a_content_editor_run', { instanceId: 'drupal', id: nid('locked'), task: 'set title to "Changed"' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ message: expect.stringMatching(/^content editor failed at "write draft": .*Access denied/) });
    expect(site.revisions('locked').map((r) => [r.status, r.title])).toEqual([['published', 'Locked node'], ['draft', 'Locked node']]);
  });

  // The double models the contract's tools, not the module's record of keyed calls.
  it.skipIf(prefix === 'double')('makes a keyed write once: the same key again (a call made again after a crash) gets the first draft, and the site keeps one', async () => {
    const key = randomBytes(16).toString('hex');
    const keyed = (id: string) => services.primitives.call(worker, 'cms_a_node_create_draft_revision', { instanceId: drupal, id }, { idempotencyKey: key }) as Promise<{ revisionId: number }>;
    const before = site.revisions('42').length;
    const first = await keyed(nid('42'));
    const again = await keyed(nid('42'));
    expect(again).toEqual(first);
    expect(site.revisions('42')).toHaveLength(before + 1);
    const other = (await services.primitives.call(worker, 'cms_a_node_create_draft_revision', { instanceId: drupal, id: nid('42') }, { idempotencyKey: randomBytes(16).toString('hex') })) as { revisionId: number };
    expect(other.revisionId).toBeGreaterThan(first.revisionId);
    expect(site.revisions('42')).toHaveLength(before + 2);
  });

  it('lists a pending draft by its own title and status, as node_get reads it (edit context)', async () => {
    await call('cms_a_node_create_draft_revision', { instanceId: 'drupal', id: nid('abc123') });
    await call('cms_a_node_update', { instanceId: 'drupal', id: nid('abc123'), fields: { title: 'Brouillon déjà prêt' } });
    expect((await call<any[]>('cms_a_node_list', { instanceId: 'drupal', status: 'draft' })).map((n) => [n.nid, n.title])).toContainEqual([nid('abc123'), 'Brouillon déjà prêt']);
    expect((await call<any[]>('cms_a_node_list', { instanceId: 'drupal', query: 'Brouillon' })).map((n) => n.nid)).toEqual([nid('abc123')]);
    await call('cms_a_node_publish', { instanceId: 'drupal', id: nid('abc123') });
  });

  it('validates node ids and fields, naming them', async () => {
    for (const id of ['', 'has space', '../etc', -3, true]) {
      await expect(call('cms_a_node_get', { instanceId: 'drupal', id }), String(id)).rejects.toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringContaining('id') });
    }
    await expect(call('cms_a_node_update', { instanceId: 'drupal', id: nid('42'), fields: { colour: 'red' } })).rejects.toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringContaining('colour') });
  });
});
