import type { Services } from '@service/core';
import { useTestDatabase } from '@service/core/testing';
import type { LlmProvider, LlmTurn } from '@service/core/llm';
import { createMemoryLogger } from '@service/core/log';
import { createRateLimiter } from '@service/core/http';
import { createWidgetStreamHandler } from '@service/core/widget';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CmsADouble } from '../helpers/cms-a-double.ts';
import { changesOf, widgetCaller } from '../helpers/widget-requests.ts';
import { startWidgetSite, WIDGET_TEST_ADMIN as admin } from '../helpers/widget-site.ts';

/**
 * The widget's Undo on CMS-A, through the routes' handlers against the `_mcp_tools` contract
 * double: it reverts exactly the recorded diff on the draft revision, once, only while that draft
 * is still the latest revision and holds what the edit left, and only for the instance whose key
 * got the token.
 */
const t = useTestDatabase();
const slug = 'cms-a-content-editor';
let site: CmsADouble;
let services: Services;
let key: string;
let widget: ReturnType<typeof widgetCaller>;
let nextNode = 0;

beforeAll(async () => {
  ({ site, services, key } = await startWidgetSite(t.db));
  widget = widgetCaller({ handlers: services.handlers, slug, instanceId: 'drupal', origin: site.siteUrl, key });
});

afterAll(async () => {
  await site?.close();
});

/** A published node of its own for each test (the double's seed has three). */
function publishedNode(title: string): string {
  const nid = `undo${++nextNode}`;
  site.nodes.set(nid, { nid, type: 'article', fieldsEditable: true, revisions: [{ revisionId: 10_000 + nextNode * 10, status: 'published', title, fields: { body: `Body of ${nid}.`, summary: '' } }] });
  return nid;
}
const latest = (nid: string) => site.revisions(nid).at(-1)!;

describe('the widget\'s Undo on CMS-A', () => {
  it('reverts exactly the recorded diff on the draft, once, without asking (the published revision is never touched)', async () => {
    const nid = publishedNode('Original');
    const edit = changesOf(await widget.stream('set title to "Edited"; append " More." to body', nid));
    expect(edit.data.fields).toEqual([
      { field: 'title', before: 'Original', after: 'Edited' },
      { field: 'body', before: `Body of ${nid}.`, after: `Body of ${nid}. More.` },
    ]);
    expect(edit.id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const undone = await widget.undo({ token: edit.id });
    expect(undone.status).toBe(200);
    const restore = changesOf(undone);
    expect(restore.id).toBeUndefined();
    expect(restore.data.fields).toEqual([
      { field: 'title', before: 'Edited', after: 'Original' },
      { field: 'body', before: `Body of ${nid}. More.`, after: `Body of ${nid}.` },
    ]);
    expect(latest(nid)).toMatchObject({ status: 'draft', title: 'Original', body: `Body of ${nid}.` });
    expect(site.published(nid)).toMatchObject({ title: 'Original' });
    expect(await widget.undo({ token: edit.id })).toMatchObject({ status: 409, error: { code: 'CONFLICT', message: 'This change was already undone.' } });
  });

  it('refuses once the draft was published, a newer revision saved, or a field changed, writing nothing', async () => {
    const published = publishedNode('Before publish');
    const edit = changesOf(await widget.stream('set title to "Draft to publish"', published));
    await services.primitives.call(admin, 'cms_a_node_publish', { instanceId: 'drupal', id: published });
    const revisions = site.revisions(published);
    expect(await widget.undo({ token: edit.id })).toMatchObject({ status: 409, error: { code: 'CONFLICT', message: expect.stringContaining('its draft was published') } });
    expect(site.revisions(published)).toEqual(revisions);

    const newer = publishedNode('Before newer');
    const second = changesOf(await widget.stream('set title to "Assistant draft"', newer));
    const node = site.nodes.get(newer)!;
    // Someone saved the draft again in Drupal (a new revision with the same values).
    node.revisions.push({ ...structuredClone(node.revisions.at(-1)!), revisionId: node.revisions.at(-1)!.revisionId + 1 });
    expect(await widget.undo({ token: second.id })).toMatchObject({ status: 409, error: { message: expect.stringContaining('a newer revision was saved') } });

    const typed = publishedNode('Before typing');
    const third = changesOf(await widget.stream('set title to "Assistant title"', typed));
    await services.primitives.call(admin, 'cms_a_node_update', { instanceId: 'drupal', id: typed, fields: { title: 'Typed by a person' } });
    expect(await widget.undo({ token: third.id })).toMatchObject({ status: 409, error: { message: expect.stringContaining('(title)') } });
    expect(latest(typed).title).toBe('Typed by a person');
  });

  it('takes a token only from the instance it was issued for', async () => {
    const nid = publishedNode('Shared site');
    const edit = changesOf(await widget.stream('set title to "Edited on drupal"', nid));
    // A second instance on the same site, with its own widget key.
    await services.connectorInstances.put(admin, { connector: 'cms_a', id: 'drupal-two', name: 'Drupal two', siteUrl: site.siteUrl, credential: site.key });
    const other = widgetCaller({ handlers: services.handlers, slug, instanceId: 'drupal-two', origin: site.siteUrl, key: (await services.widgetKeys.rotate(admin, 'cms_a', 'drupal-two')).key });
    expect(await other.undo({ token: edit.id })).toMatchObject({ status: 404, error: { code: 'NOT_FOUND' } });
    expect(latest(nid).title).toBe('Edited on drupal');
    expect((await widget.undo({ token: edit.id })).status).toBe(200);
    expect(latest(nid).title).toBe('Shared site');
  });

  it('keeps no token in the database, only its hash, and no row for a turn that changed nothing', async () => {
    const nid = publishedNode('Stored');
    const before = await t.db.models.WidgetEdit.countDocuments();
    await widget.stream('What is this page about?', nid);
    expect(await t.db.models.WidgetEdit.countDocuments()).toBe(before);
    const edit = changesOf(await widget.stream('set title to "Stored edit"', nid));
    const rows = await t.db.models.WidgetEdit.find({}).lean();
    expect(JSON.stringify(rows)).not.toContain(edit.id);
    const row = rows.find((r) => r.itemId === nid)!;
    expect(row).toMatchObject({ connector: 'cms_a', instanceId: 'drupal', actor: 'widget:cms_a:drupal', fields: [{ field: 'title', before: 'Stored', after: 'Stored edit' }], state: { status: 'draft', revisionId: latest(nid).revisionId }, undoneAt: null });
    expect(row.expiresAt.getTime() - row.createdAt.getTime()).toBe(7 * 86_400_000);
  });

  it('answers 404 for a change older than 7 days, even before the sweep (or the TTL monitor) has deleted it, and the sweep deletes it', async () => {
    const nid = publishedNode('Expiring');
    const edit = changesOf(await widget.stream('set title to "Soon expired"', nid));
    await t.db.models.WidgetEdit.updateOne({ itemId: nid }, { $set: { expiresAt: new Date(Date.now() - 1_000) } });
    expect(await widget.undo({ token: edit.id })).toMatchObject({ status: 404, error: { code: 'NOT_FOUND', message: expect.stringContaining('7 days') } });
    expect(latest(nid).title).toBe('Soon expired');
    expect(await services.widgetEdits.forgetExpired()).toBeGreaterThanOrEqual(1);
    expect(await t.db.models.WidgetEdit.countDocuments({ itemId: nid })).toBe(0);
  });
});

describe('the site-level chat (no item open: the CMS-A front page)', () => {
  it('answers without the content-editor tool, so it cannot write, whatever is asked', async () => {
    const turns: LlmTurn[] = [];
    const spy: LlmProvider = {
      name: 'spy',
      model: 'spy',
      async *stream(turn, signal) {
        turns.push(turn);
        yield* services.llm.stream(turn, signal);
      },
      complete: () => Promise.reject(new Error('unused')),
    };
    const handler = createWidgetStreamHandler({ streams: services.streams, widgetKeys: services.widgetKeys, edits: services.widgetEdits, audit: services.audit, llm: () => spy, rateLimiter: createRateLimiter({ limit: 100, windowMs: 60_000 }), logger: createMemoryLogger() });
    const siteChat = widgetCaller({ handlers: { widgetStream: handler, widgetUndo: services.handlers.widgetUndo }, slug, instanceId: 'drupal', origin: site.siteUrl, key });
    const revisions = JSON.stringify([...site.nodes.values()]);
    const answer = await siteChat.stream('set title to "From the front page"');
    expect(answer.frames.map((f) => f.event)).toEqual(['text', 'done']);
    expect(answer.frames.at(-1)!.data).toEqual({ fallback: true });
    expect(turns[0]!.tools ?? []).toEqual([]);
    expect((turns[0]!.messages[0] as { content: string }).content).toContain('No item is open');
    expect(JSON.stringify([...site.nodes.values()])).toBe(revisions);
  });
});
