import type { Services } from '@service/core';
import { testServices, useTestDatabase } from '@service/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWordPress, type RunningWordPress } from '../helpers/wordpress.ts';

const t = useTestDatabase();
let wp: RunningWordPress;
let services: Services;
const admin = { type: 'ui', id: 'admin', email: 'a@acme.test', role: 'admin' } as const;
const worker = { type: 'worker', id: 'worker:test', job: 'test' } as const;
const call = <T = any>(name: string, input: Record<string, unknown>) => services.primitives.call(worker, name, input) as Promise<T>;
/** The widget's Undo, as its route runs it: the CMS-B unit's restore. */
const restore = (input: { instanceId: string; id: string; values: Record<string, string> }) => services.streams.get('cms-b-content-editor')!.restore(worker, input);
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

beforeAll(async () => {
  wp = await startWordPress();
  services = testServices(t.db, { SERVICE_VENDOR_SCOPE: '@acme' });
  await services.connectorInstances.put(admin, { connector: 'cms_b', id: 'site', name: 'Test site', siteUrl: wp.url, username: wp.username, credential: wp.applicationPassword });
}, 180_000);

afterAll(async () => {
  await wp?.stop();
});

describe('CMS-B primitives against a real WordPress', () => {
  it('status and instances: connected as the editor, no credential in the listing', async () => {
    expect(await call('cms_b_status', { instanceId: 'site' })).toEqual({ instanceId: 'site', connected: true, user: 'editor' });
    const listed = await call('cms_b_instances_list', {});
    expect(listed).toEqual([{ id: 'site', connector: 'cms_b', name: 'Test site', siteUrl: wp.url, username: 'editor' }]);
    expect(JSON.stringify(await t.db.models.ConnectorInstance.find().lean())).not.toContain(wp.applicationPassword);
  });

  it('creates, reads, lists, updates and deletes posts', async () => {
    const draft = await call('cms_b_post_create_draft', { instanceId: 'site', title: 'Hello from the service', content: '<p>Body</p>' });
    expect(draft).toMatchObject({ status: 'draft', title: 'Hello from the service', content: '<p>Body</p>' });
    expect(await call('cms_b_post_get', { instanceId: 'site', id: String(draft.id) })).toMatchObject({ id: draft.id, title: 'Hello from the service' });
    expect((await call<any[]>('cms_b_posts_list', { instanceId: 'site', status: 'draft', search: 'Hello from' })).map((p) => p.id)).toContain(draft.id);
    const updated = await call('cms_b_post_update', { instanceId: 'site', id: draft.id, title: 'Renamed', excerpt: 'Short.' });
    expect(updated).toMatchObject({ title: 'Renamed', excerpt: 'Short.' });
    expect((await call('cms_b_post_get_latest', { instanceId: 'site' })).id).toBe(draft.id);
    await call('cms_b_post_update', { instanceId: 'site', id: draft.id, status: 'publish' });
    expect(await call('cms_b_post_status', { instanceId: 'site', id: draft.id })).toMatchObject({ id: draft.id, status: 'publish' });
    expect(await call('cms_b_post_update_meta', { instanceId: 'site', id: draft.id, meta: { service_subtitle: 'A subtitle' } })).toMatchObject({ id: draft.id });
    expect((await call('cms_b_post_get', { instanceId: 'site', id: draft.id })).meta).toMatchObject({ service_subtitle: 'A subtitle' });
    expect(await call('cms_b_post_delete', { instanceId: 'site', id: draft.id })).toEqual({ id: draft.id, deleted: false, trashed: true });
    expect(await call('cms_b_post_status', { instanceId: 'site', id: draft.id })).toMatchObject({ status: 'trash' });
    expect(await call('cms_b_post_delete', { instanceId: 'site', id: draft.id, force: true })).toEqual({ id: draft.id, deleted: true, trashed: false });
    await expect(call('cms_b_post_get', { instanceId: 'site', id: draft.id })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('uploads media to the library', async () => {
    const media = await call('cms_b_media_upload', { instanceId: 'site', filename: 'pixel.png', mimeType: 'image/png', dataBase64: PNG });
    expect(media).toMatchObject({ id: expect.any(Number), mimeType: 'image/png' });
    expect((await fetch(media.url)).status).toBe(200);
  });

  it('the content editor leaves a published post a draft with the new title and returns the diff read back, the status among it', async () => {
    const post = await call('cms_b_post_create_draft', { instanceId: 'site', title: 'Old title', content: 'Teh content.' });
    await call('cms_b_post_update', { instanceId: 'site', id: post.id, status: 'publish' });
    // A turn that changes nothing leaves the post live.
    expect(await call('cms_b_content_editor_run', { instanceId: 'site', id: post.id, task: 'Tell me about this post.' })).toMatchObject({ noChanges: true });
    expect(await call('cms_b_post_status', { instanceId: 'site', id: post.id })).toMatchObject({ status: 'publish' });
    const result = await call('cms_b_content_editor_run', { instanceId: 'site', id: post.id, task: 'set title to "New title"; replace "Teh" with "The" in content' });
    expect(result).toEqual({
      changes: [
        { field: 'title', before: 'Old title', after: 'New title' },
        { field: 'content', before: 'Teh content.', after: 'The content.' },
        { field: 'status', before: 'publish', after: 'draft' },
      ],
      postId: String(post.id),
      nodeId: String(post.id),
      noChanges: false,
      summary: expect.stringContaining('[scripted]'),
    });
    expect(await call('cms_b_post_get', { instanceId: 'site', id: post.id })).toMatchObject({ status: 'draft', title: 'New title', content: 'The content.' });

    const nothing = await call('cms_b_content_editor_run', { instanceId: 'site', id: post.id, task: 'Tell me about this post.' });
    expect(nothing).toMatchObject({ changes: [], noChanges: true, postId: String(post.id) });

    // Undo with every `before` value: the post is published again with its old fields.
    const undone = await restore({ instanceId: 'site', id: String(post.id), values: Object.fromEntries(result.changes.map((c: { field: string; before: string }) => [c.field, c.before])) });
    expect(undone.changes).toEqual([
      { field: 'title', before: 'New title', after: 'Old title' },
      { field: 'content', before: 'The content.', after: 'Teh content.' },
      { field: 'status', before: 'draft', after: 'publish' },
    ]);
    expect(await call('cms_b_post_get', { instanceId: 'site', id: post.id })).toMatchObject({ status: 'publish', title: 'Old title' });
    await expect(restore({ instanceId: 'site', id: String(post.id), values: { status: 'gone' } })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
  });

  it('validates ids and refuses an update with nothing to change, naming the field', async () => {
    for (const id of [-1, 0, 1.5, 'abc', true, '']) {
      const error = await call('cms_b_post_get', { instanceId: 'site', id }).catch((e: unknown) => e);
      expect(error, String(id)).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringContaining('id') });
    }
    await expect(call('cms_b_post_get', { instanceId: 'site', id: '999999' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const nothing = await call('cms_b_post_update', { instanceId: 'site', id: 1 }).catch((e: unknown) => e);
    expect(nothing).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringContaining('at least one field') });
  });
});
