import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Services } from '@service/core';
import { createMemoryLogger } from '@service/core/log';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UnauthenticatedCap } from './app/unauthenticated-cap.server.ts';
import { createSeamListener } from './seam-routes.ts';

const UNAVAILABLE = 'The database is unavailable; try again shortly';
let server: http.Server;
let base: string;

beforeAll(async () => {
  const notCalled = () => Promise.reject(new Error('a handler ran while the database was down'));
  const services = {
    handlers: new Proxy({}, { get: () => notCalled }),
    config: { baseUrl: 'http://agents.test' },
    database: { available: () => false },
  } as unknown as Services;
  const listener = createSeamListener(services, createMemoryLogger(), { admit: () => true } as unknown as UnauthenticatedCap);
  server = http.createServer((req, res) => {
    if (!listener(req, res)) res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const post = (path: string, body = '{}') => fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });

describe('while the database is down, each route answers 503 with Retry-After at once, in its own protocol', () => {
  it('a JSON-RPC error on the A2A JSON-RPC endpoints, with the v1.0 ErrorInfo naming the reason', async () => {
    const host = new URL(base).host;
    for (const path of ['/api/a2a', '/a2a/acme/summarizer']) {
      const response = await post(path);
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('5');
      expect(await response.json()).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32059, message: UNAVAILABLE, data: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'DEPENDENCY_UNAVAILABLE', domain: host }] },
      });
    }
  });

  it('a google.rpc.Status on the HTTP+JSON binding, a JSON-RPC error on MCP, the service error body elsewhere', async () => {
    const rest = await fetch(`${base}/api/a2a/tasks/abc`);
    expect(rest.status).toBe(503);
    expect(rest.headers.get('retry-after')).toBe('5');
    expect(await rest.json()).toMatchObject({ error: { code: 503, status: 'UNAVAILABLE', message: UNAVAILABLE } });
    const mcp = await post('/api/mcp');
    expect(mcp.status).toBe(503);
    expect(await mcp.json()).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32059, message: UNAVAILABLE } });
    const widget = await post('/api/agents/helper/stream');
    expect(widget.status).toBe(503);
    expect(widget.headers.get('retry-after')).toBe('5');
    expect(await widget.json()).toEqual({ error: { code: 'DEPENDENCY_UNAVAILABLE', message: UNAVAILABLE } });
  });
});
