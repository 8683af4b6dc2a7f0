import { describe, expect, it } from 'vitest';
import { useTestDatabase } from '../testing/index.ts';
import { createWidgetEdits, UNDO_CLAIM_STALE_MS, UNDO_TOKEN_PATTERN, WIDGET_EDIT_TTL_MS } from './widget-edits.ts';

const t = useTestDatabase();

describe('the widget changes kept for Undo', () => {
  const change = { connector: 'cms_b', instanceId: 'blog', itemId: '7', fields: [{ field: 'title', before: 'Old', after: 'New' }], state: { status: 'draft' }, actor: 'widget:cms_b:blog' };

  it('issue a fresh 256-bit token per change, found only for the connector and instance it was issued to', async () => {
    const edits = createWidgetEdits({ models: t.db.models });
    const [a, b] = [await edits.record(change), await edits.record(change)];
    expect(a).toMatch(UNDO_TOKEN_PATTERN);
    expect(a).not.toBe(b);
    expect(await edits.find('cms_b', 'blog', a)).toMatchObject({ itemId: '7', fields: change.fields, state: { status: 'draft', revisionId: null }, undoneAt: null, attempt: 0 });
    expect(await edits.find('cms_b', 'other', a)).toBeNull();
    expect(await edits.find('cms_a', 'blog', a)).toBeNull();
    expect(await edits.find('cms_b', 'blog', `${a.slice(0, -1)}${a.endsWith('A') ? 'B' : 'A'}`)).toBeNull();
  });

  it('let one claim through per attempt; a refused Undo opens the next attempt; a claim cut off is taken over once, after a while', async () => {
    let clock = Date.now();
    const edits = createWidgetEdits({ models: t.db.models, now: () => clock });
    const token = await edits.record(change);
    const edit = (await edits.find('cms_b', 'blog', token))!;
    expect(await edits.claim(edit)).toBe(true);
    expect(await edits.claim(edit)).toBe(false);
    await edits.settle(edit, 'open');
    const reopened = (await edits.find('cms_b', 'blog', token))!;
    expect(reopened.attempt).toBe(1);
    expect(await edits.claim(reopened)).toBe(true);
    // Its process dies without settling: the claim blocks until it is stale, then one caller takes it over.
    expect(await edits.claim(reopened)).toBe(false);
    clock += UNDO_CLAIM_STALE_MS + 1_000;
    expect((await Promise.all([edits.claim(reopened), edits.claim(reopened), edits.claim(reopened)])).filter(Boolean)).toHaveLength(1);
    await edits.settle(reopened, 'undone');
    expect((await edits.find('cms_b', 'blog', token))!.undoneAt).toBeInstanceOf(Date);
  });

  it('expire after 7 days: not found from then on, and deleted by the sweep', async () => {
    let clock = Date.now();
    const edits = createWidgetEdits({ models: t.db.models, now: () => clock });
    const token = await edits.record({ ...change, itemId: 'expiring' });
    clock += WIDGET_EDIT_TTL_MS;
    expect(await edits.find('cms_b', 'blog', token)).toBeNull();
    expect(await edits.forgetExpired()).toBeGreaterThanOrEqual(1);
    expect(await t.db.models.WidgetEdit.countDocuments({ itemId: 'expiring' })).toBe(0);
  });
});
