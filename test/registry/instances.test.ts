import { readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { useTestDatabase } from '@service/core/testing';
import { PublicRegistryResolverNotWiredError } from '@service/core/registry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInstance, registrySettings, type TestInstance } from '../helpers/instances.ts';
import { npmView } from '../helpers/npm-cli.ts';
import { startVerdaccio, type RunningRegistry } from '../helpers/verdaccio.ts';

const dbA = useTestDatabase();
const dbB = useTestDatabase();
let privateRegistry: RunningRegistry;
let publicRegistry: RunningRegistry;
let a: TestInstance;
let b: TestInstance;

beforeAll(async () => {
  [privateRegistry, publicRegistry] = await Promise.all([
    startVerdaccio({
      users: ['acme', 'globex'],
      packages: {
        '@acme/*': { access: 'acme', publish: 'acme' },
        '@globex/*': { access: 'globex', publish: 'globex' },
        '**': { access: '$authenticated', publish: '$authenticated' },
      },
    }),
    startVerdaccio({ users: ['acme-publisher', 'reader'], packages: { '**': { access: '$all', publish: '$authenticated' } } }),
  ]);
  a = createInstance(dbA.db, '@acme');
  b = createInstance(dbB.db, '@globex');
  await a.services.registry.settings.save(a.admin, registrySettings({
    routingMode: 'scope-based',
    publicUrl: publicRegistry.url,
    publicPublishToken: publicRegistry.tokens['acme-publisher'],
    publicReadToken: publicRegistry.tokens.reader,
    privateId: 'acme-private',
    privateUrl: privateRegistry.url,
    privateToken: privateRegistry.tokens.acme,
  }));
  // B is on the baseline: it can read the public registry but has no public publish token.
  await b.services.registry.settings.save(b.admin, registrySettings({
    routingMode: 'scope-based',
    publicUrl: publicRegistry.url,
    publicPublishToken: null,
    publicReadToken: publicRegistry.tokens.reader,
    privateId: 'globex-private',
    privateUrl: privateRegistry.url,
    privateToken: privateRegistry.tokens.globex,
  }));
});

afterAll(async () => {
  await Promise.all([privateRegistry?.stop(), publicRegistry?.stop()]);
});

async function visibleNamesOnB(): Promise<string[]> {
  const reader = b.services.extensions;
  return [
    ...(await reader.marketplace()).items.map((x) => x.packageName),
    ...(await reader.activeTemplates()).map((x) => x.packageName),
    ...(await reader.search('summarizer')).map((x) => x.packageName),
    ...(await b.services.registry.listRegistry(b.admin, 'public')).map((x) => x.packageName),
    ...(await b.services.registry.listRegistry(b.admin, 'private', 'acme')).map((x) => x.packageName),
  ];
}

describe('two instances sharing registries', () => {
  let summarizerId = '';

  it('A publishes a private package that B cannot see on any read path', async () => {
    const draft = await a.author('summarizer');
    summarizerId = draft.id;
    const published = await a.services.registry.publish(a.admin, draft.id, { destination: 'private' });
    expect(published.version).toBe('1.0.1');
    expect(published.origin).toEqual({
      packageName: '@acme/summarizer',
      version: '1.0.1',
      destinationId: 'acme-private',
      scope: '@acme',
      visibility: 'private',
      registryUrl: privateRegistry.url,
    });
    expect(await npmView(privateRegistry.url, privateRegistry.tokens.acme!, '@acme/summarizer', 'scope')).toMatchObject({ name: '@acme/summarizer', version: '1.0.1' });
    expect(await npmView(privateRegistry.url, privateRegistry.tokens.globex!, '@acme/summarizer', 'scope')).toBeNull();

    expect(await visibleNamesOnB()).not.toContain('@acme/summarizer');
    await expect(b.services.registry.pull(b.admin, { packageName: '@acme/summarizer', from: 'public' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(b.services.registry.pull(b.admin, { packageName: '@acme/summarizer', from: 'private' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await b.services.extensions.getByPackageName('@acme/summarizer')).toBeNull();
  });

  it('never puts a registry token on the npm command line, in a log line or in origin', async () => {
    const secrets = [privateRegistry.tokens.acme!, publicRegistry.tokens['acme-publisher']!, publicRegistry.tokens.reader!];
    expect(a.npmArgv.length).toBeGreaterThan(0);
    expect(a.npmArgv[0]).toEqual(expect.arrayContaining(['publish', `--@acme:registry=${privateRegistry.url}`, '--userconfig']));
    const everything = JSON.stringify([a.npmArgv, a.npmLog.records, a.services.logger.records, await dbA.db.models.Extension.find().lean()]);
    for (const secret of secrets) expect(everything).not.toContain(secret);
  });

  it('refuses promotion without an admin session', async () => {
    const member = { type: 'ui', id: 'm', email: 'm@acme.test', role: 'member' } as const;
    await expect(a.services.registry.promote(member, summarizerId)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(a.services.registry.startPromote({ type: 'a2a', id: 'c', clientId: 'c' }, summarizerId)).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });

  it('after A promotes it, B sees it, pulls it and installs it with a public origin', async () => {
    const promoted = await a.services.registry.promote(a.admin, summarizerId);
    expect(promoted.origin).toMatchObject({ visibility: 'public', destinationId: null, registryUrl: publicRegistry.url, version: '1.0.1' });
    await a.services.audit.flush();
    const audit = await a.services.audit.list();
    expect(audit.items).toContainEqual(expect.objectContaining({ action: 'promote', resourceType: 'extension_registry', resourceId: summarizerId, actor: { type: 'ui', id: a.admin.id } }));

    expect((await b.services.registry.listRegistry(b.admin, 'public')).map((x) => x.packageName)).toContain('@acme/summarizer');
    const installed = await b.services.registry.pull(b.admin, { packageName: '@acme/summarizer', from: 'public' });
    expect(installed).toMatchObject({ status: 'installed', version: '1.0.1' });
    expect(installed.origin).toEqual({
      packageName: '@acme/summarizer',
      version: '1.0.1',
      destinationId: null,
      scope: '@acme',
      visibility: 'public',
      registryUrl: publicRegistry.url,
    });
    expect((await b.services.extensions.marketplace()).items.map((x) => x.packageName)).toContain('@acme/summarizer');
    expect((await b.services.extensions.activeTemplates()).map((x) => x.compiled.toolName)).toContain('acme__summarizer');
  });

  it('refuses to promote what is already public, with an explicit error', async () => {
    const error = await a.services.registry.promote(a.admin, summarizerId).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'CONFLICT', message: expect.stringContaining('already public') });
  });

  it('fails promotion when the public publish token is null (baseline), naming where to fix it', async () => {
    const draft = await b.author('summarizer');
    await b.services.registry.publish(b.admin, draft.id, { destination: 'private' });
    const error = await b.services.registry.startPromote(b.admin, draft.id).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PublicRegistryResolverNotWiredError);
    expect((error as Error).message).toContain('Administration › Settings › Registries');
    await expect(b.services.registry.publish(b.admin, draft.id, { destination: 'public' })).rejects.toBeInstanceOf(PublicRegistryResolverNotWiredError);
    expect((await b.services.extensions.get(draft.id))?.origin.visibility).toBe('private');
  });

  it('rejects a tampered tarball and installs nothing', async () => {
    const draft = await a.author('editorial-review');
    await a.services.registry.publish(a.admin, draft.id, { destination: 'private' });
    await a.services.registry.promote(a.admin, draft.id);
    const dir = path.join(publicRegistry.storage, '@acme', 'editorial-review');
    const tarball = readdirSync(dir).find((f) => f.endsWith('.tgz'))!;
    writeFileSync(path.join(dir, tarball), Buffer.from('not the tarball that was published'));

    const error = await b.services.registry.pull(b.admin, { packageName: '@acme/editorial-review', from: 'public' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'INTEGRITY_MISMATCH' });
    expect(await dbB.db.models.Extension.countDocuments({ packageName: '@acme/editorial-review' })).toBe(0);
  });
});
