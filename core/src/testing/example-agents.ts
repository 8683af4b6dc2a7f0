import { compileSource, loadExample } from '../agents/index.ts';
import type { Database } from '../db/index.ts';
import { createExtensionWriter } from '../extensions/index.ts';

/** Installs example agents into an instance's database as published, public agents of `scope`. */
export async function installExampleAgents(database: Pick<Database, 'models'>, scope: string, slugs: string[] = ['summarizer', 'editorial-review']): Promise<void> {
  const writer = createExtensionWriter(database.models);
  for (const slug of slugs) {
    const source = loadExample(slug, scope);
    const compiled = compileSource(source);
    await writer.install({
      source,
      compiled,
      origin: { packageName: compiled.packageName, version: compiled.version, destinationId: null, scope, visibility: 'public', registryUrl: 'http://registry.invalid/' },
    });
  }
}
