import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { testServices, useTestDatabase } from '../testing/index.ts';

const t = useTestDatabase();
const admin = { type: 'ui', id: 'admin', email: 'a@x.test', role: 'admin' } as const;
const keep = { action: 'keep' } as const;

describe('registry settings', () => {
  it('removes the private destination with its sealed tokens, audited; extensions published there keep their origin', async () => {
    const services = testServices(t.db);
    const { registry } = services;
    await registry.settings.save(admin, {
      routingMode: 'scope-based',
      public: { registryUrl: 'https://npm.example.com/', publishToken: { action: 'replace', value: 'pub-token' }, readToken: keep },
      private: { id: 'gone-private', registryUrl: 'https://private.example.com/', publishToken: { action: 'replace', value: 'priv-token' }, readToken: keep },
    });
    await t.db.models.Extension.collection.insertOne({ _id: 'ext-private' as never, packageName: '@acme/kept', origin: { packageName: '@acme/kept', version: '1.0.0', destinationId: 'gone-private', scope: '@acme', visibility: 'private', registryUrl: 'https://private.example.com/' } });

    const after = await registry.settings.removePrivate(admin);
    expect(after.private).toBeNull();
    expect(after.public).toMatchObject({ registryUrl: 'https://npm.example.com/', publishTokenSet: true });
    expect(await t.db.models.RegistryDestination.findById('gone-private').lean()).toBeNull();
    expect((await t.db.models.Extension.collection.findOne({ _id: 'ext-private' as never }))!.origin).toMatchObject({ registryUrl: 'https://private.example.com/', destinationId: 'gone-private' });
    await services.audit.flush();
    expect(await t.db.models.AuditEvent.findOne({ action: 'registry.private.remove' }).lean()).toMatchObject({ resourceId: 'gone-private' });
    await expect(registry.settings.removePrivate(admin)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await t.db.models.Extension.collection.deleteOne({ _id: 'ext-private' as never });
  });

  it('asks for each stored token again when a registry URL moves to another origin', async () => {
    const { registry } = testServices(t.db);
    const settings = (publicUrl: string, privateUrl: string, tokens: { publish?: object; read?: object; privatePublish?: object } = {}) => ({
      routingMode: 'scope-based',
      public: { registryUrl: publicUrl, publishToken: tokens.publish ?? keep, readToken: tokens.read ?? keep },
      private: { id: 'acme-private', registryUrl: privateUrl, publishToken: tokens.privatePublish ?? keep, readToken: keep },
    });
    await registry.settings.save(admin, settings('https://npm.example.com/', 'https://private.example.com/', { publish: { action: 'replace', value: 'pub-token' }, privatePublish: { action: 'replace', value: 'priv-token' } }));

    // Same origins, other paths: the tokens stay.
    const same = await registry.settings.save(admin, settings('https://npm.example.com/registry/', 'https://private.example.com/npm/'));
    expect(same.public).toMatchObject({ registryUrl: 'https://npm.example.com/registry/', publishTokenSet: true });

    // The private registry moves while its token is kept: refused before anything is written (the public side too).
    await expect(registry.settings.save(admin, settings('https://mirror.example.com/', 'https://evil.example.net/'))).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      details: [{ path: 'public.publishToken' }],
    });
    await expect(registry.settings.save(admin, settings('https://npm.example.com/registry/', 'https://evil.example.net/'))).rejects.toMatchObject({
      details: [{ path: 'private.publishToken', reason: expect.stringContaining('enter this token again') }],
    });
    expect((await registry.settings.get(admin)).private).toMatchObject({ registryUrl: 'https://private.example.com/npm/', publishTokenSet: true });

    // Entered again, or cleared: saved.
    const moved = await registry.settings.save(admin, settings('https://npm.example.com/registry/', 'https://registry.example.org/', { privatePublish: { action: 'replace', value: 'new-token' } }));
    expect(moved.private).toMatchObject({ registryUrl: 'https://registry.example.org/', publishTokenSet: true });
    const cleared = await registry.settings.save(admin, settings('https://other.example.com/', 'https://registry.example.org/', { publish: { action: 'clear' } }));
    expect(cleared.public).toMatchObject({ registryUrl: 'https://other.example.com/', publishTokenSet: false });
  });

  it('points both destinations at the embedded registry while nothing else is configured, until an admin saves real ones', async () => {
    await t.db.models.RegistryDeployment.deleteMany({});
    const { registry } = testServices(t.db);
    expect(await registry.settings.embeddedOrUnset()).toBe(true);
    await registry.settings.useEmbedded({ url: 'http://127.0.0.1:4873/', token: 'embedded-token' });
    expect(await registry.settings.get(admin)).toMatchObject({ routingMode: 'scope-based', embedded: true, public: { registryUrl: 'http://127.0.0.1:4873/', publishTokenSet: true }, private: { id: 'embedded-private', readTokenSet: true } });
    // A later start on another port moves both destinations with the fresh token.
    await registry.settings.useEmbedded({ url: 'http://127.0.0.1:4999/', token: 'next-token' });
    expect((await registry.settings.get(admin)).private).toMatchObject({ registryUrl: 'http://127.0.0.1:4999/' });
    expect(await registry.settings.embeddedOrUnset()).toBe(true);
    await registry.settings.save(admin, { routingMode: 'scope-based', public: { registryUrl: 'https://npm.example.com/', publishToken: { action: 'replace', value: 'p' }, readToken: { action: 'clear' } }, private: null });
    expect(await registry.settings.get(admin)).toMatchObject({ embedded: false });
    expect(await registry.settings.embeddedOrUnset()).toBe(false);
  });

  it('reaches the embedded registry on loopback with SERVICE_OUTBOUND_ALLOW_PRIVATE=false, and no other loopback origin', async () => {
    // Stands in for the embedded Verdaccio (its own tests run the real one): a search answer, and a
    // packument whose tarball sits on another loopback port (a registry may not lead the service there).
    let port = 0;
    const verdaccio = http.createServer((req, res) => {
      const answer = (body: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (req.url?.startsWith('/-/v1/search')) answer({ objects: [{ package: { name: '@acme/notes', version: '1.0.0' } }] });
      else if (req.url === '/@acme%2fnotes') answer({ name: '@acme/notes', 'dist-tags': { latest: '1.0.0' }, versions: { '1.0.0': { dist: { tarball: `http://127.0.0.1:${port + 1}/notes.tgz`, integrity: 'sha512-x' } } } });
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => verdaccio.listen(0, '127.0.0.1', resolve));
    port = (verdaccio.address() as AddressInfo).port;
    const url = `http://127.0.0.1:${port}/`;
    try {
      await t.db.models.RegistryDeployment.deleteMany({});
      const services = testServices(t.db, { SERVICE_OUTBOUND_ALLOW_PRIVATE: 'false' });
      await services.registry.settings.useEmbedded({ url, token: 'embedded-token' });
      expect(await services.registry.listRegistry(admin, 'private')).toMatchObject([{ packageName: '@acme/notes' }]);
      await expect(services.registry.pull(admin, { packageName: '@acme/notes', from: 'private' })).rejects.toMatchObject({ code: 'OUTBOUND_REFUSED', message: expect.stringContaining(`127.0.0.1:${port + 1}`) });
      // The exemption is the registry's: every other caller is still refused that origin.
      await expect(services.outbound.fetch(url)).rejects.toMatchObject({ code: 'OUTBOUND_REFUSED' });
    } finally {
      await new Promise((resolve) => verdaccio.close(resolve));
    }
  });
});
