import { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import type { AuditLog } from '../audit/index.ts';
import type { AgentAccessActor } from '../auth/index.ts';
import { createPrimitiveRegistry, definePrimitive, PRIMITIVE_ACCESS_DENIED } from '../connectors/index.ts';
import { createMemoryLogger } from '../log/index.ts';
import { buildMcpServer } from './build-server.ts';
import { createMcpHttpHandler } from './http-handler.ts';
import { connectStdio } from './stdio.ts';

const search = definePrimitive({
  name: 'demo_search',
  connector: 'demo',
  description: 'searches',
  input: z.object({ query: z.string().min(1) }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  permission: 'read',
  handler: async (_context, input) => ({ found: input.query }),
});
const remove = definePrimitive({
  name: 'other_remove',
  connector: 'other',
  description: 'removes',
  input: z.object({ id: z.string() }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
  permission: 'read',
  handler: async () => ({ removed: true }),
});
const registry = () => createPrimitiveRegistry({ primitives: [search, remove], audit: { record: () => undefined } as unknown as AuditLog });
const client = (allowedPrimitives: string[]): AgentAccessActor => ({ type: 'a2a', id: 'oauth:c', clientId: 'c', grants: { allowedAgents: [], permissions: [], allowedPrimitives } });

/** The `/api/mcp` handler for a client whose grants are read from `grants.current` at each request. */
function endpoint(grants: { current: string[] }) {
  const handler = createMcpHttpHandler({
    registry: registry(),
    resource: () => 'http://localhost/api/mcp',
    verifyToken: async () => client(grants.current),
    version: 'test',
    logger: createMemoryLogger(),
    allowedHostnames: ['localhost'],
  });
  const rpc = async (body: unknown) => {
    const response = await handler(
      new Request('http://localhost/api/mcp', {
        method: 'POST',
        headers: { host: 'localhost', authorization: 'Bearer t', 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify(body),
      }),
    );
    return (await response.json()) as { result?: Record<string, unknown>; error?: { code: number; message: string } };
  };
  const listed = async () => ((await rpc({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} })).result!.tools as { name: string }[]).map((tool) => tool.name);
  return { handler, rpc, listed };
}

describe('tools/list shows only what the caller may call', () => {
  it('lists the granted tools only, by name or by connector, and all of them for *', async () => {
    const grants = { current: ['demo_search'] };
    const { listed } = endpoint(grants);
    expect(await listed()).toEqual(['demo_search']);
    grants.current = ['other'];
    expect(await listed()).toEqual(['other_remove']);
    grants.current = [];
    expect(await listed()).toEqual([]);
    grants.current = ['*'];
    expect(await listed()).toEqual(['demo_search', 'other_remove']);
  });

  it('describes a listed tool as before: input schema, output schema, annotations', async () => {
    const { rpc } = endpoint({ current: ['demo'] });
    const { tools } = (await rpc({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} })).result as { tools: Record<string, unknown>[] };
    expect(tools[0]).toMatchObject({ name: 'demo_search', title: 'demo_search', description: 'searches', inputSchema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] }, annotations: { readOnlyHint: true } });
  });

  it('tells a stdio session the list changed when the grants it calls under have changed', async () => {
    const grants = { current: ['demo_search'] };
    const server = buildMcpServer({ registry: registry(), actor: async () => client(grants.current), version: 'test', logger: createMemoryLogger() });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    let changed = 0;
    const mcp = new Client({ name: 't', version: '1' }, { listChanged: { tools: { autoRefresh: false, onChanged: () => (changed += 1) } } });
    await mcp.connect(clientSide);
    expect((await mcp.listTools()).tools.map((tool) => tool.name)).toEqual(['demo_search']);
    grants.current = ['other'];
    await mcp.callTool({ name: 'other_remove', arguments: { id: 'x' } });
    await expect.poll(() => changed).toBe(1);
    expect((await mcp.listTools()).tools.map((tool) => tool.name)).toEqual(['other_remove']);
    await mcp.close();
  });
});

describe('tools/call checks access before the input', () => {
  it('answers the access refusal, not schema errors, to a caller without the grant', async () => {
    const { rpc } = endpoint({ current: ['other'] });
    for (const args of [{}, { query: 7 }, { query: 'ok' }]) {
      const { result } = await rpc({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'demo_search', arguments: args } });
      expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: `FORBIDDEN: ${PRIMITIVE_ACCESS_DENIED}` }] });
    }
  });

  it('still answers input errors to a caller with the grant, and data to a good call', async () => {
    const { rpc } = endpoint({ current: ['demo'] });
    const bad = await rpc({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'demo_search', arguments: { query: 7 } } });
    expect(bad.result).toMatchObject({ isError: true, content: [{ text: expect.stringMatching(/^VALIDATION_FAILED: Invalid input for demo_search: query: /) }] });
    const good = await rpc({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'demo_search', arguments: { query: 'q' } } });
    expect(good.result).toMatchObject({ structuredContent: { result: { found: 'q' } } });
  });
});

describe('a malformed tools/call', () => {
  it.each([
    ['arguments that are an array', { name: 'demo_search', arguments: [1, 2] }, 'params.arguments must be an object'],
    ['arguments that are a string', { name: 'demo_search', arguments: 'query=x' }, 'params.arguments must be an object'],
    ['no name', { arguments: {} }, 'params.name must be'],
    ['no params', undefined, 'tools/call needs params'],
  ])('with %s answers -32602 Invalid params with a plain message', async (_case, params, message) => {
    const { rpc } = endpoint({ current: ['*'] });
    const { error } = await rpc({ jsonrpc: '2.0', id: 1, method: 'tools/call', ...(params === undefined ? {} : { params }) });
    expect(error?.code).toBe(-32602);
    expect(error?.message).toContain(message);
    expect(error?.message).not.toMatch(/expected|invalid_type|"path"/);
  });
});

describe('GET /api/mcp', () => {
  it('answers 405 with Allow: POST before the token is checked, after the host check', async () => {
    let checked = 0;
    const handler = createMcpHttpHandler({
      registry: registry(),
      resource: () => 'http://localhost/api/mcp',
    verifyToken: async () => {
        checked += 1;
        return client(['*']);
      },
      version: 'test',
      logger: createMemoryLogger(),
      allowedHostnames: ['localhost'],
    });
    const get = (host: string) => handler(new Request('http://localhost/api/mcp', { method: 'GET', headers: { host, authorization: 'Bearer t', accept: 'text/event-stream' } }));
    const response = await get('localhost');
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
    expect(checked).toBe(0);
    expect((await get('evil.example')).status).toBe(403);
  });
});

describe('stdio', () => {
  it('answers a line that is not JSON with a -32700 parse error (id null) and a log line, and keeps serving', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const logger = createMemoryLogger();
    const server = buildMcpServer({ registry: registry(), actor: async () => client(['*']), version: 'test', logger });
    await connectStdio(server, new StdioServerTransport(stdin, stdout), logger);
    const lines: unknown[] = [];
    stdout.on('data', (chunk: Buffer) => lines.push(...chunk.toString('utf8').trim().split('\n').map((line) => JSON.parse(line))));
    stdin.write('this is not json\n');
    stdin.write('{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}\n');
    await expect.poll(() => lines.length).toBe(2);
    expect(lines[0]).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.stringContaining('Parse error') } });
    expect(lines[1]).toMatchObject({ id: 2, result: { tools: [{ name: 'demo_search' }, { name: 'other_remove' }] } });
    expect(logger.records.filter((record) => record.level === 'warn')).toHaveLength(1);
    await server.close();
  });
});
