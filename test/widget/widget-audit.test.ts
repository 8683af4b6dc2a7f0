import type { Services } from '@service/core';
import { useTestDatabase } from '@service/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CmsADouble } from '../helpers/cms-a-double.ts';
import { startWidgetSite } from '../helpers/widget-site.ts';

const t = useTestDatabase();
let site: CmsADouble;
let services: Services;
let key: string;
const slug = 'cms-a-content-editor';

beforeAll(async () => {
  ({ site, services, key } = await startWidgetSite(t.db));
});

afterAll(async () => {
  await site?.close();
});

const post = (action: 'stream' | 'undo', body: unknown) =>
  new Request(`http://127.0.0.1:3999/api/agents/${slug}/${action}?instanceId=drupal`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: site.siteUrl, authorization: `Bearer ${key}` },
    body: JSON.stringify(body),
  });

async function rows(action: string) {
  await services.audit.flush();
  return (await services.audit.list({ limit: 200 })).items.filter((row) => row.action === action);
}

describe('writes the widget causes', () => {
  it('an edit is audited with the widget as actor, the instance and item, and field names and sizes only', async () => {
    const task = 'set title to "Audited widget title"';
    const text = await (await services.handlers.widgetStream(post('stream', { itemId: '42', messages: [{ role: 'user', content: task }] }), slug)).text();
    expect(text).toContain('event: changes');
    const [row, ...more] = await rows('widget.edit');
    expect(more).toEqual([]);
    expect(row).toMatchObject({
      actor: { type: 'route', id: 'widget:cms_a:drupal' },
      resourceType: 'cms_a',
      resourceId: 'drupal/42',
      details: { instanceId: 'drupal', itemId: '42', outcome: 'changed', nodeId: '42', postId: '42', fields: [{ field: 'title', beforeBytes: 'Published title'.length, afterBytes: 'Audited widget title'.length }], taskBytes: task.length },
    });
    expect(JSON.stringify(row!.details)).not.toMatch(/Audited widget title|Published title/);
  });

  it('an Undo is audited the same way', async () => {
    const edit = await (await services.handlers.widgetStream(post('stream', { itemId: '42', messages: [{ role: 'user', content: 'set title to "Audited again"' }] }), slug)).text();
    const token = /^id: (.+)$/m.exec(edit)![1]!;
    const text = await (await services.handlers.widgetUndo(post('undo', { token }), slug)).text();
    expect(text).toContain('event: changes');
    expect(site.nodes.get('42')!.revisions.at(-1)!.title).toBe('Audited widget title');
    const [row] = await rows('widget.undo');
    expect(row).toMatchObject({
      actor: { type: 'route', id: 'widget:cms_a:drupal' },
      resourceType: 'cms_a',
      resourceId: 'drupal/42',
      details: { instanceId: 'drupal', itemId: '42', outcome: 'changed', requestedFields: ['title'], fields: [{ field: 'title', beforeBytes: 'Audited again'.length, afterBytes: 'Audited widget title'.length }] },
    });
    expect(JSON.stringify(row!.details)).not.toMatch(/Audited widget title|Audited again/);
  });

  it('a failed edit is audited as failed (it may have written a draft revision first)', async () => {
    const text = await (await services.handlers.widgetStream(post('stream', { itemId: 'locked', messages: [{ role: 'user', content: 'set title to "x"' }] }), slug)).text();
    expect(text).toContain('event: error');
    const row = (await rows('widget.edit')).find((r) => r.resourceId === 'drupal/locked');
    expect(row).toMatchObject({ details: { outcome: 'failed', error: expect.any(String), itemId: 'locked' } });
  });

  it('an Undo that names no change of the service\'s is refused before anything is written or audited', async () => {
    const before = (await rows('widget.undo')).length;
    const bodies: [unknown, number][] = [
      [{ itemId: '../42', fields: [{ field: 'title', before: 'a', after: 'b' }] }, 400],
      [{ token: '../42' }, 400],
      [{ token: 'A'.repeat(43) }, 404],
    ];
    for (const [body, status] of bodies) expect((await services.handlers.widgetUndo(post('undo', body), slug)).status, JSON.stringify(body)).toBe(status);
    expect((await rows('widget.undo')).length).toBe(before);
  });
});
