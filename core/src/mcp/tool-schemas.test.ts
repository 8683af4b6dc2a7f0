import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../log/index.ts';
import { testServices, useTestDatabase } from '../testing/index.ts';
import type { AgentAccessActor } from '../auth/index.ts';
import { buildMcpServer } from './build-server.ts';

const t = useTestDatabase();

/**
 * The checks of the MCP Inspector CLI's `--strict` schema lint (@modelcontextprotocol/inspector
 * 2.12.0, core/json/schemaLint.ts), as rules over one JSON Schema:
 * - boolean-schema: a bare `true`/`false` where a schema object is expected (allowed only as the
 *   value of additionalProperties, unevaluatedProperties, additionalItems, unevaluatedItems);
 * - type-union: `type` written as an array, e.g. `["string", "null"]`;
 * - remote-ref: a `$ref` that does not start with `#`;
 * - untyped-schema: a schema object with no validation keyword at all, e.g. the `{}` that
 *   `additionalProperties: {}` or `z.unknown()` becomes (allowed only under `not`).
 */
const CONSTRAINING = new Set([
  'type', 'enum', 'const', 'multipleOf', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum', 'maxLength', 'minLength', 'pattern', 'format',
  'contentMediaType', 'contentEncoding', 'contentSchema', 'maxItems', 'minItems', 'uniqueItems', 'maxContains', 'minContains', 'maxProperties', 'minProperties',
  'required', 'dependentRequired', 'allOf', 'anyOf', 'oneOf', 'not', 'items', 'prefixItems', 'contains', 'additionalItems', 'unevaluatedItems', 'properties',
  'patternProperties', 'additionalProperties', 'unevaluatedProperties', 'propertyNames', 'dependentSchemas', 'dependencies', '$ref', '$dynamicRef', '$recursiveRef',
]);
const BOOLEAN_ALLOWED = new Set(['additionalProperties', 'unevaluatedProperties', 'additionalItems', 'unevaluatedItems']);
const SUBSCHEMA = ['items', 'contains', 'not', 'propertyNames', 'if', 'then', 'else', 'additionalProperties', 'unevaluatedProperties', 'additionalItems', 'unevaluatedItems', 'contentSchema'];
const SUBSCHEMA_LIST = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SUBSCHEMA_MAP = ['properties', 'patternProperties', 'dependentSchemas', 'dependencies', '$defs', 'definitions'];

type Node = Record<string, unknown>;
const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null && !Array.isArray(value);

function unportable(schema: unknown, path = '', keyword?: string): string[] {
  if (typeof schema === 'boolean') return keyword && BOOLEAN_ALLOWED.has(keyword) ? [] : [`${path}: bare ${schema} (boolean-schema)`];
  if (!isNode(schema)) return [];
  const found: string[] = [];
  if (Array.isArray(schema.type)) found.push(`${path}: type ${JSON.stringify(schema.type)} (type-union)`);
  if (typeof schema.$ref === 'string' && schema.$ref !== '' && !schema.$ref.startsWith('#')) found.push(`${path}: $ref ${schema.$ref} (remote-ref)`);
  const constrains = Object.keys(schema).some((key) => CONSTRAINING.has(key)) || ('if' in schema && ('then' in schema || 'else' in schema));
  if (!constrains && keyword !== 'not') found.push(`${path}: ${JSON.stringify(schema)} accepts anything (untyped-schema)`);
  for (const key of SUBSCHEMA_MAP) {
    if (isNode(schema[key])) for (const [name, sub] of Object.entries(schema[key])) found.push(...unportable(sub, `${path}.${key}.${name}`, key));
  }
  for (const key of SUBSCHEMA_LIST) {
    if (Array.isArray(schema[key])) schema[key].forEach((sub, i) => found.push(...unportable(sub, `${path}.${key}[${i}]`, key)));
  }
  for (const key of SUBSCHEMA) {
    if (!(key in schema)) continue;
    const value = schema[key];
    if (Array.isArray(value)) value.forEach((sub, i) => found.push(...unportable(sub, `${path}.${key}[${i}]`, key)));
    else found.push(...unportable(value, `${path}.${key}`, key));
  }
  return found;
}

describe('the tool schemas MCP clients see', () => {
  it('walks like the Inspector lint: flags each unportable pattern and passes portable spellings', () => {
    expect(unportable({ type: 'object', additionalProperties: {} })).toEqual([expect.stringContaining('untyped-schema')]);
    expect(unportable({ type: 'object', properties: { a: { type: ['string', 'null'] } } })).toEqual([expect.stringContaining('type-union')]);
    expect(unportable({ anyOf: [true] })).toEqual([expect.stringContaining('boolean-schema')]);
    expect(unportable({ $ref: 'https://example.test/s.json' })).toEqual([expect.stringContaining('remote-ref')]);
    expect(unportable({ type: 'object', additionalProperties: true, properties: { a: { anyOf: [{ type: 'string' }, { type: 'null' }] } } })).toEqual([]);
  });

  it('are portable for every tool as tools/list answers them (what `mcp-inspector --strict` checks)', async () => {
    const services = testServices(t.db);
    // A caller granted every primitive: tools/list shows a caller only what it may call.
    const everything: AgentAccessActor = { type: 'a2a', id: 'oauth:schema-lint', clientId: 'schema-lint', grants: { allowedAgents: [], permissions: [], allowedPrimitives: ['*'] } };
    const server = buildMcpServer({ registry: services.primitives, actor: async () => everything, version: 'test', logger: createMemoryLogger() });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'schema-lint', version: '1.0.0' });
    await client.connect(clientSide);
    try {
      const { tools } = await client.listTools();
      expect(tools.length).toBe(services.primitives.list().length);
      const findings = tools.flatMap((tool) => [
        ...unportable(tool.inputSchema).map((finding) => `${tool.name} inputSchema${finding}`),
        ...(tool.outputSchema ? unportable(tool.outputSchema).map((finding) => `${tool.name} outputSchema${finding}`) : []),
      ]);
      expect(findings).toEqual([]);
    } finally {
      await client.close();
      await server.close();
    }
  });
});
