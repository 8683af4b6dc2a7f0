import { recordSpans, testServices, useTestDatabase } from '@service/core/testing';
import type { Services } from '@service/core';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createCaller } from './router.server.ts';
import { handleTrpc } from './handler.server.ts';

const t = useTestDatabase();
let services: Services;
let spans: ReturnType<typeof recordSpans> | null = null;

beforeAll(() => {
  services = testServices(t.db);
});
afterEach(async () => {
  await spans?.stop();
  spans = null;
});

const admin = { type: 'ui', id: 'a1', email: 'a@example.com', role: 'admin' } as const;

describe('admin actions (tRPC procedures) are server spans', () => {
  it('names the procedure, continues the caller\'s traceparent, and records the outcome code', async () => {
    spans = recordSpans();
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const response = await handleTrpc(new Request('http://127.0.0.1:3999/api/trpc/system.info', { headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` } }), services);
    expect(response.status).toBe(401);
    const [span] = (await spans.finished()).filter((finished) => finished.name === 'trpc system.info');
    expect(span?.spanContext().traceId).toBe(traceId);
    expect(span?.parentSpanContext?.spanId).toBe('00f067aa0ba902b7');
    expect(span?.attributes).toMatchObject({ 'rpc.system': 'trpc', 'rpc.method': 'system.info', 'service.trpc.type': 'query', 'rpc.response.status_code': 'UNAUTHORIZED' });
  });

  it('records no input value of the procedure', async () => {
    spans = recordSpans();
    await createCaller({ services, actor: admin }).audit.list({ actor: 'someone-private@example.com', action: 'secret.action' });
    const [span] = (await spans.finished()).filter((finished) => finished.name === 'trpc audit.list');
    expect(span?.attributes['rpc.response.status_code']).toBe('OK');
    const recorded = JSON.stringify({ attributes: span?.attributes, events: span?.events });
    expect(recorded).not.toContain('someone-private');
    expect(recorded).not.toContain('secret.action');
  });
});
