import { describe, expect, it } from 'vitest';
import type { AuditLog } from '../audit/index.ts';
import { DomainError } from '../errors/index.ts';
import { createMemoryLogger } from '../log/index.ts';
import { createPrimitiveRegistry } from '../connectors/index.ts';
import { createMcpHttpHandler } from './http-handler.ts';

/** A handler whose token check ends the way `failure` says. */
function handlerFailingWith(failure: unknown) {
  const logger = createMemoryLogger();
  const handler = createMcpHttpHandler({
    // The token check comes first: the registry is never reached.
    registry: createPrimitiveRegistry({ primitives: [], audit: {} as AuditLog }),
    resource: () => 'http://localhost/api/mcp',
    verifyToken: async () => {
      throw failure;
    },
    version: 'test',
    logger,
    allowedHostnames: ['localhost'],
  });
  const request = new Request('http://localhost/mcp', {
    method: 'POST',
    headers: { host: 'localhost', authorization: 'Bearer some.jwt.token', 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
  return { logger, answer: () => handler(request) };
}

/** What the driver throws when no server answers (matched by name, as the handler does). */
function unreachable(): Error {
  const error = new Error('connection refused');
  error.name = 'MongoServerSelectionError';
  return error;
}

describe('the MCP HTTP handler’s token check', () => {
  it('answers 401 invalid_token to a token that fails verification', async () => {
    const response = await handlerFailingWith(new DomainError('UNAUTHENTICATED', 'Invalid or expired access token')).answer();
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it('answers 503 with Retry-After, never 401, when the database cannot be reached to check the token', async () => {
    const { logger, answer } = handlerFailingWith(unreachable());
    const response = await answer();
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('5');
    expect(await response.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32059 } });
    expect(logger.records.some((record) => record.level === 'warn')).toBe(true);
  });

  it('answers 500 and logs the cause when the check fails for a reason of ours, so the client keeps its token', async () => {
    const { logger, answer } = handlerFailingWith(new TypeError('a bug'));
    const response = await answer();
    expect(response.status).toBe(500);
    expect(await response.json()).toMatchObject({ error: { code: -32603, message: 'Internal error' } });
    expect(logger.records.some((record) => record.level === 'error')).toBe(true);
  });
});

describe('the MCP HTTP handler for browser-based clients (CORS)', () => {
  const handler = createMcpHttpHandler({
    registry: createPrimitiveRegistry({ primitives: [], audit: {} as AuditLog }),
    resource: () => 'http://localhost/api/mcp',
    verifyToken: async () => {
      throw new DomainError('UNAUTHENTICATED', 'Invalid or expired access token');
    },
    version: 'test',
    logger: createMemoryLogger(),
    allowedHostnames: ['localhost'],
  });
  const from = (method: string, headers: Record<string, string>) => handler(new Request('http://localhost/api/mcp', { method, headers: { host: 'localhost', origin: 'https://client.example', ...headers }, ...(method === 'POST' ? { body: '{}' } : {}) }));

  it('answers a preflight from any origin for POST with the headers a client sends', async () => {
    const response = await from('OPTIONS', { 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type, mcp-protocol-version' });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('access-control-allow-methods')).toBe('POST');
    expect(response.headers.get('access-control-allow-headers')).toContain('mcp-protocol-version');
  });

  it('lets the page read a refusal, the challenge that names the authorization server included', async () => {
    const response = await from('POST', { 'content-type': 'application/json' });
    expect(response.status).toBe(401);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('access-control-expose-headers')).toContain('www-authenticate');
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer resource_metadata=/);
  });

  it('checks the Host first: a rebound name gets no CORS answer, not even to a preflight', async () => {
    const response = await handler(new Request('http://localhost/api/mcp', { method: 'OPTIONS', headers: { host: 'attacker.example', origin: 'https://attacker.example' } }));
    expect(response.status).toBe(403);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });
});
