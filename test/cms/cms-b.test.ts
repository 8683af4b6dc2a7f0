import type { Services } from '@service/core';
import { testServices, useTestDatabase } from '@service/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWordPress, type RunningWordPress } from '../helpers/wordpress.ts';
import { changesOf, widgetCaller } from '../helpers/widget-requests.ts';

const t = useTestDatabase();
let wp: RunningWordPress;
let services: Services;
const admin = { type: 'ui', id: 'admin', email: 'a@acme.test', role: 'admin' } as const;
const worker = { type: 'worker', id: 'worker:test', job: 'test' } as const;
const call = <T = any>(name: string, input: Record<string, unknown>) => services.primitives.call(worker, name, input) as Promise<T>;
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
    expect(await call('cms_b_post_update_meta', { instanceId: 'site', id: draft.id, meta: { service_subtitle: 'A subtitle' }, allowLive: true })).toMatchObject({ id: draft.id });
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
  });

  it('refuses a change that leaves a live post live unless the caller passes allowLive: true (the rule the widget asks about); demoting needs no flag', async () => {
    const post = await call('cms_b_post_create_draft', { instanceId: 'site', title: 'Live one', content: 'Body.' });
    // Publishing a draft is not an edit of a live post.
    await call('cms_b_post_update', { instanceId: 'site', id: post.id, status: 'publish' });
    for (const change of [{ title: 'Changed while live' }, { status: 'publish' }, { title: 'Changed while live', status: 'publish' }, { title: 'Changed while live', allowLive: false }]) {
      const refused = await call('cms_b_post_update', { instanceId: 'site', id: post.id, ...change }).catch((e: unknown) => e);
      expect(refused, JSON.stringify(change)).toMatchObject({ code: 'CONFLICT', message: expect.stringContaining('allowLive: true') });
      expect((refused as Error).message).toContain('live');
    }
    expect(await call('cms_b_post_get', { instanceId: 'site', id: post.id })).toMatchObject({ status: 'publish', title: 'Live one' });
    expect(await call('cms_b_post_update', { instanceId: 'site', id: post.id, title: 'Changed while live', allowLive: true })).toMatchObject({ status: 'publish', title: 'Changed while live' });
    // Meta fields of a live post follow the same rule.
    const meta = { service_subtitle: 'Live subtitle' };
    await expect(call('cms_b_post_update_meta', { instanceId: 'site', id: post.id, meta })).rejects.toMatchObject({ code: 'CONFLICT', message: expect.stringContaining('cms_b_post_update_meta changes a live post') });
    expect(await call('cms_b_post_update_meta', { instanceId: 'site', id: post.id, meta, allowLive: true })).toMatchObject({ id: post.id, status: 'publish' });
    // The contract's demote-then-edit: demoting takes the post out of view and needs no flag; then the draft is edited.
    expect(await call('cms_b_post_update', { instanceId: 'site', id: post.id, status: 'draft' })).toMatchObject({ status: 'draft' });
    expect(await call('cms_b_post_update', { instanceId: 'site', id: post.id, title: 'Edited as a draft' })).toMatchObject({ status: 'draft', title: 'Edited as a draft' });
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

describe('the widget\'s Undo against a real WordPress (the widget routes\' handlers)', () => {
  let widget: ReturnType<typeof widgetCaller>;
  const get = (id: number) => call('cms_b_post_get', { instanceId: 'site', id });
  /** A post as an editor makes it in WordPress (through the REST API, as the primitives do). */
  const newPost = async (title: string, status: 'draft' | 'publish') => {
    const post = await call('cms_b_post_create_draft', { instanceId: 'site', title, content: 'Body.' });
    if (status === 'publish') await call('cms_b_post_update', { instanceId: 'site', id: post.id, status: 'publish' });
    return post.id as number;
  };

  beforeAll(async () => {
    const { key } = await services.widgetKeys.rotate(admin, 'cms_b', 'site');
    widget = widgetCaller({ handlers: services.handlers, slug: 'cms-b-content-editor', instanceId: 'site', origin: new URL(wp.url).origin, key });
  });

  it('undoes the edit of a live post once, publishing again only when confirmed; the Undo\'s own diff cannot be undone (defect 1)', async () => {
    const id = await newPost('Live title', 'publish');
    // The widget's confirm is the service's rule: without the user's yes, the question and no write.
    const asked = await widget.stream('set title to "Edited while live"', id);
    expect(asked.frames.filter((frame) => frame.event === 'changes')).toEqual([]);
    expect(asked.frames.map((frame) => (frame.event === 'text' ? frame.data.content : '')).join('')).toContain('This post is live: editing it unpublishes it');
    expect(asked.frames.at(-1)).toMatchObject({ event: 'done', data: { fallback: true } });
    expect(await get(id)).toMatchObject({ status: 'publish', title: 'Live title' });
    const edit = changesOf(await widget.stream('set title to "Edited while live"', id, { confirmLiveEdit: true }));
    expect(edit.data.fields).toEqual([
      { field: 'title', before: 'Live title', after: 'Edited while live' },
      { field: 'status', before: 'publish', after: 'draft' },
    ]);
    // The undo token rides in the SSE id, outside the frozen payload: 256 random bits.
    expect(edit.id).toMatch(/^[A-Za-z0-9_-]{43}$/);

    // Publishing again is asked first: without the user's yes nothing is written.
    const unconfirmed = await widget.undo({ token: edit.id });
    expect(unconfirmed).toMatchObject({ status: 409, error: { code: 'CONFLICT', message: expect.stringContaining('publishes the post again'), details: [{ path: 'confirmStatusChange' }] } });
    expect(await get(id)).toMatchObject({ status: 'draft', title: 'Edited while live' });

    const undone = await widget.undo({ token: edit.id, confirmStatusChange: true });
    expect(undone.status).toBe(200);
    const restore = changesOf(undone);
    expect(restore.data.fields).toEqual([
      { field: 'title', before: 'Edited while live', after: 'Live title' },
      { field: 'status', before: 'draft', after: 'publish' },
    ]);
    expect(restore.id).toBeUndefined();
    expect(undone.frames.at(-1)).toMatchObject({ event: 'done', data: {} });
    expect(await get(id)).toMatchObject({ status: 'publish', title: 'Live title' });

    // The same token again (a second click, a retried request) is refused, and the post stays live.
    expect(await widget.undo({ token: edit.id, confirmStatusChange: true })).toMatchObject({ status: 409, error: { code: 'CONFLICT', message: 'This change was already undone.' } });
    // What the old widget sent for the restore diff's Undo: field values, refused before anything is read.
    expect(await widget.undo({ itemId: id, fields: restore.data.fields })).toMatchObject({ status: 400, error: { code: 'VALIDATION_FAILED' } });
    expect(await get(id)).toMatchObject({ status: 'publish', title: 'Live title' });
  });

  it('refuses to undo the edit of a draft that was published by hand since (defect 2)', async () => {
    const id = await newPost('Draft title', 'draft');
    const edit = changesOf(await widget.stream('set title to "Assistant title"', id));
    expect(edit.data.fields).toEqual([{ field: 'title', before: 'Draft title', after: 'Assistant title' }]);
    await call('cms_b_post_update', { instanceId: 'site', id, status: 'publish' });
    // What the old widget sent (the diff's values): refused, the post stays live (it was unpublished).
    expect(await widget.undo({ itemId: id, fields: edit.data.fields })).toMatchObject({ status: 400 });
    expect(await get(id)).toMatchObject({ status: 'publish', title: 'Assistant title' });
    for (const body of [{ token: edit.id }, { token: edit.id, confirmStatusChange: true }]) {
      const refused = await widget.undo(body);
      expect(refused).toMatchObject({ status: 409, error: { code: 'CONFLICT', message: expect.stringContaining('status is now "publish"') } });
      expect(refused.error!.message).not.toContain('Assistant title');
    }
    expect(await get(id)).toMatchObject({ status: 'publish', title: 'Assistant title' });
  });

  it('refuses hand-made Undo requests with field values, and an Undo of a post changed since (defect 3)', async () => {
    const draft = await newPost('Never published', 'draft');
    const live = await newPost('Live post', 'publish');
    // Only the widget key: a request naming a status and a title to write is refused as a whole.
    const forged = await widget.undo({ itemId: draft, fields: [{ field: 'status', before: 'publish', after: 'draft' }, { field: 'title', before: 'Chosen by the caller', after: 'x' }] });
    expect(forged).toMatchObject({ status: 400, error: { code: 'VALIDATION_FAILED', message: expect.stringContaining('token') } });
    expect(await widget.undo({ itemId: live, fields: [{ field: 'colour', before: 'red', after: 'blue' }] })).toMatchObject({ status: 400 });
    // A token-shaped guess, extra members, a token that is not a string.
    expect(await widget.undo({ token: 'A'.repeat(43) })).toMatchObject({ status: 404, error: { code: 'NOT_FOUND' } });
    expect(await widget.undo({ token: 'A'.repeat(43), status: 'publish' })).toMatchObject({ status: 400 });
    expect(await widget.undo({ token: 42 })).toMatchObject({ status: 400 });
    expect(await get(draft)).toMatchObject({ status: 'draft', title: 'Never published' });
    expect(await get(live)).toMatchObject({ status: 'publish', title: 'Live post' });

    // An edit, then a change by hand: the Undo would overwrite it, so it is refused and nothing is written.
    const edit = changesOf(await widget.stream('set title to "By the assistant"; set excerpt to "Short."', draft));
    await call('cms_b_post_update', { instanceId: 'site', id: draft, title: 'By a person' });
    expect(await widget.undo({ token: edit.id })).toMatchObject({ status: 409, error: { code: 'CONFLICT', message: expect.stringContaining('(title)') } });
    expect(await get(draft)).toMatchObject({ status: 'draft', title: 'By a person', excerpt: 'Short.' });
    // Put back as the edit left it, the same token undoes exactly the recorded diff.
    await call('cms_b_post_update', { instanceId: 'site', id: draft, title: 'By the assistant' });
    const undone = await widget.undo({ token: edit.id });
    expect(changesOf(undone).data.fields).toEqual([
      { field: 'title', before: 'By the assistant', after: 'Never published' },
      { field: 'excerpt', before: 'Short.', after: '' },
    ]);
    expect(await get(draft)).toMatchObject({ status: 'draft', title: 'Never published', excerpt: '' });
  });
});
