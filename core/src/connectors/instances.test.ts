import { describe, expect, it } from 'vitest';
import { testServices, useTestDatabase } from '../testing/index.ts';

const t = useTestDatabase();
const admin = { type: 'ui', id: 'admin', email: 'a@x.test', role: 'admin' } as const;

describe('connector instances', () => {
  it('asks for the credential again when the site moves to another origin, and drops the webhook secret', async () => {
    const { connectorInstances: instances } = testServices(t.db);
    await instances.put(admin, { connector: 'cms_b', id: 'blog', name: 'Blog', siteUrl: 'https://blog.example.com', username: 'editor', credential: 'app-password', webhookSecret: 'hook-secret' });

    // Same origin, another path or name: the stored credential stays.
    await instances.put(admin, { connector: 'cms_b', id: 'blog', name: 'Our blog', siteUrl: 'https://blog.example.com/wp/', username: 'editor' });
    expect((await instances.withCredential('cms_b', 'blog')).credential).toBe('app-password');
    expect(await instances.webhookSecret('cms_b', 'blog')).toMatchObject({ secret: 'hook-secret' });

    // Another origin without the credential: refused, nothing changed.
    await expect(instances.put(admin, { connector: 'cms_b', id: 'blog', name: 'Blog', siteUrl: 'https://attacker.example.net', username: 'editor' })).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      details: [{ path: 'credential', reason: expect.stringContaining('enter the credential again') }],
    });
    expect((await instances.withCredential('cms_b', 'blog')).siteUrl).toBe('https://blog.example.com/wp');
    await expect(instances.put(admin, { connector: 'cms_b', id: 'blog', name: 'Blog', siteUrl: 'http://blog.example.com', username: 'editor' })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });

    // Another origin with the credential entered again: saved, and the old webhook secret is gone.
    await instances.put(admin, { connector: 'cms_b', id: 'blog', name: 'Blog', siteUrl: 'https://new-blog.example.com', username: 'editor', credential: 'new-password' });
    expect(await instances.withCredential('cms_b', 'blog')).toMatchObject({ siteUrl: 'https://new-blog.example.com', credential: 'new-password' });
    expect(await instances.webhookSecret('cms_b', 'blog')).toBeNull();
  });

  it('removes an instance with its sealed credentials, widget key and widget edits, audited', async () => {
    const services = testServices(t.db);
    const { connectorInstances: instances, widgetKeys } = services;
    await instances.put(admin, { connector: 'cms_b', id: 'blog', name: 'Blog', siteUrl: 'https://blog.example.com', username: 'editor', credential: 'app-password', webhookSecret: 'hook-secret' });
    await instances.put(admin, { connector: 'cms_b', id: 'shop', name: 'Shop', siteUrl: 'https://shop.example.com', username: 'editor', credential: 'other' });
    const { key } = await widgetKeys.rotate(admin, 'cms_b', 'blog');
    await t.db.models.WidgetEdit.create({ _id: 'edit-1', connector: 'cms_b', instanceId: 'blog', itemId: '1', fields: [], state: { status: 'draft' }, actor: 'widget:cms_b:blog', createdAt: new Date(), expiresAt: new Date(Date.now() + 60_000) });

    await expect(instances.remove(admin, 'cms_a', 'blog')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await instances.remove(admin, 'cms_b', 'blog');

    expect((await instances.list('cms_b')).map((row) => row.id)).toEqual(['shop']);
    expect(await t.db.models.ConnectorInstance.findById('blog').lean()).toBeNull();
    await expect(instances.withCredential('cms_b', 'blog')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await instances.webhookSecret('cms_b', 'blog')).toBeNull();
    expect(await widgetKeys.verify('cms_b', 'blog', key)).toBe(false);
    expect(await t.db.models.WidgetEdit.countDocuments({ instanceId: 'blog' })).toBe(0);
    await services.audit.flush();
    expect(await t.db.models.AuditEvent.findOne({ action: 'connector_instance.remove' }).lean()).toMatchObject({ resourceType: 'cms_b', resourceId: 'blog' });
    await expect(instances.remove({ type: 'ui', id: 'u', email: 'u@x.test', role: 'editor' } as never, 'cms_b', 'shop')).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });
});
