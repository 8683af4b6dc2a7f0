import { z } from 'zod';
import type { ExtensionReader } from '../../extensions/index.ts';
import { definePrimitive } from '../primitive.ts';

/** The extension-search handler: extension records through the visibility filter. */
export function extensionsSearchPrimitive(extensions: ExtensionReader) {
  return definePrimitive({
    name: 'service_extensions_search',
    connector: 'service',
    title: 'Search extensions',
    description: 'Search the agent and skill extensions this instance can see (public ones, and private ones of its own scope).',
    input: z.object({
      query: z.string().max(200).default(''),
      limit: z.number().int().min(1).max(50).default(20),
    }),
    output: z.array(
      z.object({ packageName: z.string(), kind: z.string(), version: z.string(), visibility: z.string(), scope: z.string(), name: z.string(), description: z.string() }),
    ),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    permission: 'read',
    async handler(_context, input) {
      const found = await extensions.search(input.query, input.limit);
      return found.map((x) => ({
        packageName: x.packageName,
        kind: x.kind,
        version: x.version,
        visibility: x.origin.visibility,
        scope: x.origin.scope,
        name: x.compiled.card.name,
        description: x.compiled.card.description,
      }));
    },
  });
}
