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
});
