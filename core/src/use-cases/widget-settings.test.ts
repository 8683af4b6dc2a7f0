import { beforeAll, describe, expect, it } from 'vitest';
import type { Services } from '../index.ts';
import { testServices, useTestDatabase } from '../testing/index.ts';

const t = useTestDatabase();
let services: Services;
const admin = { type: 'ui', id: 'admin-widget', email: 'admin@acme.test', role: 'admin' } as const;

beforeAll(() => {
  services = testServices(t.db);
});

describe('the Assistants page: each site of a connector with its widget settings', () => {
  it('lists every instance with its settings; the key only as set and its prefix', async () => {
    await services.connectorInstances.put(admin, { connector: 'cms_b', id: 'blog', name: 'Blog', siteUrl: 'https://blog.example', username: 'bot', credential: 'app password' });
    await services.connectorInstances.put(admin, { connector: 'cms_b', id: 'shop', name: 'Shop', siteUrl: 'https://shop.example', username: 'bot', credential: 'app password' });
    await services.connectorInstances.put(admin, { connector: 'cms_a', id: 'other', name: 'Other', siteUrl: 'https://other.example', credential: 'key' });
    const { key } = await services.widgetKeys.rotate(admin, 'cms_b', 'blog');
    const rows = await services.useCases.widgetSettings(admin, 'cms_b');
    expect(rows.map((row) => [row.instance.id, row.widget.keySet])).toEqual([
      ['blog', true],
      ['shop', false],
    ]);
    expect(rows[0]!.widget).toMatchObject({ siteOrigin: 'https://blog.example', allowedOrigins: ['https://blog.example'], keyPrefix: key.slice(0, rows[0]!.widget.keyPrefix!.length) });
    expect(JSON.stringify(rows)).not.toContain(key);
  });

  it('records when a key was revoked until a new one is generated; revoking no key is refused', async () => {
    await services.connectorInstances.put(admin, { connector: 'cms_b', id: 'news', name: 'News', siteUrl: 'https://news.example', username: 'bot', credential: 'app password' });
    await expect(services.widgetKeys.revoke(admin, 'cms_b', 'news')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await services.widgetKeys.rotate(admin, 'cms_b', 'news');
    await services.widgetKeys.revoke(admin, 'cms_b', 'news');
    const revoked = (await services.useCases.widgetSettings(admin, 'cms_b')).find((row) => row.instance.id === 'news')!.widget;
    expect(revoked).toMatchObject({ keySet: false, keyPrefix: null, revokedAt: expect.stringMatching(/^\d{4}-/) });
    await services.widgetKeys.rotate(admin, 'cms_b', 'news');
    expect((await services.widgetKeys.settings('cms_b', 'news'))!.revokedAt).toBeNull();
  });

  it('is for admins only', async () => {
    await expect(services.useCases.widgetSettings({ type: 'ui', id: 'm', email: 'm@acme.test', role: 'member' }, 'cms_b')).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });
});
