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
