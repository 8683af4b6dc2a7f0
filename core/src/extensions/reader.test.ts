import { describe, expect, it, beforeAll } from 'vitest';
import { compileSource, loadExample } from '../agents/index.ts';
import { useTestDatabase } from '../testing/index.ts';
import { createExtensionReader, createExtensionWriter, type ExtensionOrigin } from './index.ts';

const t = useTestDatabase();

async function seed(scope: string, slug: string, visibility: 'public' | 'private') {
  const source = loadExample(slug === 'editorial' ? 'editorial-review' : 'summarizer', scope);
  const compiled = compileSource(source);
  const origin: ExtensionOrigin = { packageName: compiled.packageName, version: compiled.version, destinationId: visibility === 'public' ? null : 'dest', scope, visibility, registryUrl: 'http://registry.test/' };
  return createExtensionWriter(t.db.models).install({ source, compiled, origin });
}

beforeAll(async () => {
  await seed('@alpha', 'summarizer', 'private');
  await seed('@alpha', 'editorial', 'public');
  await seed('@beta', 'summarizer', 'private');
  await seed('@gamma', 'summarizer', 'public');
});

describe('the visibility filter on every read path', () => {
  it('shows public rows to everyone and private rows only to their own scope', async () => {
    const alpha = createExtensionReader(t.db.models, { vendorScope: '@alpha' });
    const beta = createExtensionReader(t.db.models, { vendorScope: '@beta' });
    const names = (rows: { packageName: string }[]) => rows.map((r) => r.packageName);

    expect(names((await alpha.marketplace()).items)).toEqual(['@alpha/editorial-review', '@alpha/summarizer', '@gamma/summarizer']);
    expect(names((await beta.marketplace()).items)).toEqual(['@alpha/editorial-review', '@beta/summarizer', '@gamma/summarizer']);
    expect(names(await beta.activeTemplates())).toEqual(['@alpha/editorial-review', '@beta/summarizer', '@gamma/summarizer']);
    expect(names(await beta.search('Three Sentences'))).toEqual(['@beta/summarizer', '@gamma/summarizer']);
    expect(await beta.getByPackageName('@alpha/summarizer')).toBeNull();

    const hidden = (await alpha.getByPackageName('@alpha/summarizer'))!;
    expect(await beta.get(hidden.id)).toBeNull();
    expect((await alpha.get(hidden.id))?.packageName).toBe('@alpha/summarizer');
    expect([...(await beta.dependencyIndex()).keys()]).not.toContain('@alpha/summarizer');
  });

  it('pages the marketplace by package name', async () => {
    const alpha = createExtensionReader(t.db.models, { vendorScope: '@alpha' });
    const first = await alpha.marketplace({ limit: 2 });
    expect(first.items).toHaveLength(2);
    const second = await alpha.marketplace({ limit: 2, after: first.nextAfter! });
    expect(second.items.map((r) => r.packageName)).toEqual(['@gamma/summarizer']);
    expect(second.nextAfter).toBeNull();
  });
});

describe('the marketplace listing (ordered keys over the records)', () => {
  it('merges public and own private rows of both kinds in name order, with kind and text filters, page by page', async () => {
    const reader = createExtensionReader(t.db.models, { vendorScope: '@alpha' });
    const all: string[] = [];
    for (let after: string | undefined, pages = 0; pages < 10; pages++) {
      const page = await reader.marketplace({ limit: 1, ...(after ? { after } : {}) });
      all.push(...page.items.map((r) => r.packageName));
      if (!page.nextAfter) break;
      after = page.nextAfter;
    }
    expect(all).toEqual(['@alpha/editorial-review', '@alpha/summarizer', '@gamma/summarizer']);
    expect((await reader.marketplace({ kind: 'skill' })).items).toEqual([]);
    expect((await reader.marketplace({ text: 'EDITORIAL' })).items.map((r) => r.packageName)).toEqual(['@alpha/editorial-review']);
  });

  it('never serves a stale row: a record that moved or vanished is checked against the record and dropped', async () => {
    const { Extension, ExtensionListing } = t.db.models;
    const alpha = createExtensionReader(t.db.models, { vendorScope: '@alpha' });
    const beta = createExtensionReader(t.db.models, { vendorScope: '@beta' });
    const row = (await Extension.findOne({ packageName: '@beta/summarizer' }).lean())!;
    // A listing row claiming @beta's private record is public (as if written before a change that never landed).
    await ExtensionListing.create({ _id: 'public/agent/@beta/summarizer', extensionId: row._id, packageName: '@beta/summarizer', searchText: '' });
    expect((await alpha.marketplace()).items.map((r) => r.packageName)).not.toContain('@beta/summarizer');
    expect(await alpha.getByPackageName('@beta/summarizer')).toBeNull();
    expect(await ExtensionListing.exists({ _id: 'public/agent/@beta/summarizer' })).toBeNull();
    expect((await beta.marketplace()).items.map((r) => r.packageName)).toContain('@beta/summarizer');

    await Extension.deleteOne({ packageName: '@gamma/summarizer' });
    expect((await alpha.marketplace()).items.map((r) => r.packageName)).toEqual(['@alpha/editorial-review', '@alpha/summarizer']);
    expect(await ExtensionListing.exists({ _id: 'public/agent/@gamma/summarizer' })).toBeNull();
  });

  it('a promotion moves the row from the private range to the public one', async () => {
    const writer = createExtensionWriter(t.db.models);
    const alpha = createExtensionReader(t.db.models, { vendorScope: '@alpha' });
    const beta = createExtensionReader(t.db.models, { vendorScope: '@beta' });
    const record = (await alpha.getByPackageName('@alpha/summarizer'))!;
    expect(await beta.getByPackageName('@alpha/summarizer')).toBeNull();
    await writer.markPublished(record.id, { version: '1.0.1', source: record.source as never, compiled: record.compiled, origin: { ...record.origin, visibility: 'public', version: '1.0.1' } });
    expect((await beta.getByPackageName('@alpha/summarizer'))?.version).toBe('1.0.1');
    expect(await t.db.models.ExtensionListing.exists({ _id: 'private/@alpha/agent/@alpha/summarizer' })).toBeNull();
  });

  it('lists records written before the listing existed, once per database', async () => {
    const { ExtensionListing, Migration } = t.db.models;
    await ExtensionListing.deleteMany({});
    await Migration.deleteMany({ _id: 'extension-listing' });
    const alpha = createExtensionReader(t.db.models, { vendorScope: '@alpha' });
    expect((await alpha.marketplace()).items).toEqual([]);
    expect(await createExtensionWriter(t.db.models).backfillListing()).toBeGreaterThanOrEqual(3);
    expect((await alpha.marketplace()).items.map((r) => r.packageName)).toEqual(['@alpha/editorial-review', '@alpha/summarizer']);
    expect(await createExtensionWriter(t.db.models).backfillListing()).toBe(0);
  });
});
