import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../errors/index.ts';
import { fuzzParameters, testServices, useTestDatabase, within } from '../testing/index.ts';

const t = useTestDatabase();
/** A client granted everything, so calls get past the gate to the inputs. */
const actor = { type: 'a2a', id: 'oauth:fuzz', clientId: 'fuzz', grants: { allowedAgents: ['*'], permissions: ['list', 'read', 'execute'], allowedPrimitives: ['*'] }, expiresAt: Date.now() / 1000 + 600 } as const;

const field = fc.constantFrom('instanceId', 'id', 'nodeId', 'title', 'content', 'status', 'fields', 'task', 'query', 'limit', 'filename', 'mimeType', 'base64', 'meta', 'force');
const value = fc.oneof(fc.constantFrom('blog', 'missing', '1', '-1', '0', '1e9', 'publish', 'draft', ''), fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.string({ maxLength: 100 }), fc.jsonValue({ maxDepth: 2 }));
const input = fc.oneof({ arbitrary: fc.dictionary(field, value, { maxKeys: 6 }), weight: 4 }, { arbitrary: fc.jsonValue({ maxDepth: 2 }), weight: 1 });

describe('fuzzing the connector primitives (the MCP surface)', () => {
  it('every primitive answers any input with a result or a typed error, never a crash or a hang', async () => {
    const services = testServices(t.db);
    const names = services.primitives.list().map((p) => p.name);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...names), input, async (name, raw) => {
        try {
          await within(10_000, services.primitives.call(actor as never, name, raw));
        } catch (error) {
          expect(error, `${name} ${JSON.stringify(raw)?.slice(0, 200)}: ${String(error)}`).toBeInstanceOf(DomainError);
          expect((error as DomainError).code).not.toBe('INTERNAL');
        }
      }),
      fuzzParameters(600),
    );
  });
});
