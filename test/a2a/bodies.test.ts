import { useTestDatabase } from '@service/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startA2aHost } from '../helpers/a2a.ts';
import type { RunningService } from '../helpers/service-process.ts';

const t = useTestDatabase();
let service: RunningService;
let token: string;

beforeAll(async () => {
  ({ service, token } = await startA2aHost(t.db, { mongodbUri: t.uri, scope: '@acme' }));
});

afterAll(async () => {
  await service?.stop();
});

/** 2 MiB of JSON-looking text: over every limit below. */
const oversized = `{"jsonrpc":"2.0","id":7,"method":"message/send","params":{"pad":"${'x'.repeat(2 * 1024 * 1024)}"}}`;

describe('bodies over the limit on a running service (real sockets)', () => {
  it('/api/a2a answers 413 with a JSON-RPC error, not a reset, and the next call works', async () => {
    const response = await fetch(`${service.url}/api/a2a`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: oversized });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
    const next = await fetch(`${service.url}/api/a2a`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'tasks/get', params: { id: 'none' } }) });
    expect(await next.json()).toMatchObject({ id: 8, error: { code: -32001 } });
  });

  it('/api/oauth/token answers 413', async () => {
    const response = await fetch(`${service.url}/api/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `grant_type=client_credentials&pad=${'x'.repeat(2 * 1024 * 1024)}` });
    expect(response.status).toBe(413);
  });

  it('/api/mcp answers 413 past its limit, and 400 to a body that is not JSON', async () => {
    const mcp = (body: string) => fetch(`${service.url}/api/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` }, body });
    const big = await mcp(`{"pad":"${'y'.repeat(9 * 1024 * 1024)}"}`);
    expect(big.status).toBe(413);
    expect(await big.json()).toMatchObject({ error: { code: -32600 } });
    const notJson = await mcp('{not json');
    expect(notJson.status).toBe(400);
    expect(await notJson.json()).toMatchObject({ error: { code: -32700 } });
    const list = await mcp(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }));
    expect(list.status).toBe(200);
  });
});
