import { compileSource, loadExample } from '@service/core/agents';
import type { Database } from '@service/core/db';
import { createExtensionWriter } from '@service/core/extensions';

/** Installs example agents into an instance's database as published, public agents of `scope`. */
export async function installExampleAgents(database: Database, scope: string, slugs: string[] = ['summarizer', 'editorial-review']): Promise<void> {
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

/** Client credentials → access token at the instance's token endpoint, over real HTTP. */
export async function fetchAccessToken(tokenEndpoint: string, clientId: string, clientSecret: string): Promise<string> {
  const response = await fetch(tokenEndpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}` },
    body: new URLSearchParams({ grant_type: 'client_credentials' }),
  });
  if (!response.ok) throw new Error(`token endpoint answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { access_token: string }).access_token;
}
