import { A2AClient } from '@a2a-js/sdk/client';
import { useTestDatabase } from '@service/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startA2aHost } from '../helpers/a2a.ts';
import { startService, type RunningService } from '../helpers/service-process.ts';

const t = useTestDatabase();
let service: RunningService;
let token: string;

beforeAll(async () => {
  ({ service, token } = await startA2aHost(t.db, { mongodbUri: t.uri, scope: '@acme' }));
  // The token came from the endpoint the card advertises.
  const card = (await (await fetch(`${service.url}/.well-known/agent.json`)).json()) as { authentication: { tokenEndpoint: string } };
  expect(card.authentication.tokenEndpoint).toBe(`${service.url}/api/oauth/token`);
});

afterAll(async () => {
  await service?.stop();
});

const withBearer: typeof fetch = (input, init) => {
  const headers = new Headers(init?.headers);
  headers.set('authorization', `Bearer ${token}`);
  return fetch(input, { ...init, headers });
};

describe('the reference A2A client (@a2a-js/sdk) against our server', () => {
  it('discovers the card and completes message/send', async () => {
    const client = await A2AClient.fromCardUrl(`${service.url}/.well-known/agent-card.json`, { fetchImpl: withBearer });
    const response = await client.sendMessage({ message: { kind: 'message', messageId: crypto.randomUUID(), role: 'user', parts: [{ kind: 'text', text: 'Reference clients work. Good.' }] } });
    if ('error' in response) throw new Error(JSON.stringify(response.error));
    expect(response.result).toMatchObject({ kind: 'task', status: { state: 'completed' } });
  });

  it('completes a streaming call', async () => {
    const client = await A2AClient.fromCardUrl(`${service.url}/.well-known/agent-card.json`, { fetchImpl: withBearer });
    const events = [];
    for await (const event of client.sendMessageStream({ message: { kind: 'message', messageId: crypto.randomUUID(), role: 'user', parts: [{ kind: 'text', text: 'Stream me. Please.' }] } })) {
      events.push(event);
    }
    expect(events.map((e) => e.kind)).toEqual(['task', 'status-update', 'artifact-update', 'status-update']);
    expect(events.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
  });

  it('is refused without a token and 404 when the flag is off', async () => {
    expect((await fetch(`${service.url}/api/a2a`, { method: 'POST', body: '{}' })).status).toBe(401);
    const off = await startService({ mongodbUri: t.uri, env: { SERVICE_VENDOR_SCOPE: '@acme' } });
    try {
      expect((await fetch(`${off.url}/api/a2a`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: '{}' })).status).toBe(404);
    } finally {
      await off.stop();
    }
  });
});
