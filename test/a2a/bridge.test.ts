import { randomBytes } from 'node:crypto';
import { useTestDatabase } from '@service/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installExampleAgents } from '../helpers/a2a.ts';
import { startService, type RunningService } from '../helpers/service-process.ts';

const t = useTestDatabase();
const bridgeToken = randomBytes(32).toString('base64url');
let service: RunningService;
let unset: RunningService;

beforeAll(async () => {
  await installExampleAgents(t.db, '@acme', ['summarizer']);
  [service, unset] = await Promise.all([
    startService({ mongodbUri: t.uri, env: { SERVICE_VENDOR_SCOPE: '@acme', SERVICE_BRIDGE_TOKEN: bridgeToken } }),
    // Production mode generates nothing: SERVICE_BRIDGE_TOKEN stays unset.
    startService({ mongodbUri: t.uri, env: { SERVICE_VENDOR_SCOPE: '@acme', NODE_ENV: 'production', SERVICE_BASE_URL: 'http://127.0.0.1:1', SERVICE_BRIDGE_TOKEN: '' } }),
  ]);
});

afterAll(async () => {
  await Promise.all([service?.stop(), unset?.stop()]);
});

const call = (base: string, path: string, token: string | null, init: RequestInit = {}) =>
  fetch(`${base}${path}`, { ...init, headers: { 'content-type': 'application/json', ...(token === null ? {} : { 'x-service-bridge-token': token }), ...(init.headers ?? {}) } });

describe('bridge routes', () => {
  it('answer 403 without the header, with a wrong one, and when SERVICE_BRIDGE_TOKEN is unset', async () => {
    for (const path of ['/api/a2a/agents/acme/summarizer', '/api/llm-bridge']) {
      expect((await call(service.url, path, null)).status).toBe(403);
      expect((await call(service.url, path, `${bridgeToken.slice(0, -1)}x`)).status).toBe(403);
      expect((await call(unset.url, path, bridgeToken)).status).toBe(403);
      expect((await call(unset.url, path, '')).status).toBe(403);
    }
  });

  it('answer 200 with the right token: the agent skill, a sub-agent call, an LLM turn', async () => {
    const skill = await call(service.url, '/api/a2a/agents/acme/summarizer', bridgeToken);
    expect(skill.status).toBe(200);
    expect(await skill.json()).toMatchObject({ id: '@acme/summarizer', type: 'leaf' });

    const run = await call(service.url, '/api/a2a/agents/acme/summarizer', bridgeToken, { method: 'POST', body: JSON.stringify({ input: 'Bridges carry calls. Nothing else.' }) });
    expect(run.status).toBe(200);
    expect(await run.json()).toEqual({ agent: '@acme/summarizer', output: '[scripted] Summarize: Bridges carry calls. Nothing else.' });

    const llm = await call(service.url, '/api/llm-bridge', bridgeToken, { method: 'POST', body: JSON.stringify({ messages: [{ role: 'user', content: 'Hello there.' }] }) });
    expect(llm.status).toBe(200);
    expect(await llm.json()).toMatchObject({ text: '[scripted] Hello there.', provider: 'scripted' });

    expect((await call(service.url, '/api/a2a/agents/acme/nobody', bridgeToken)).status).toBe(404);
    expect((await call(service.url, '/api/llm-bridge', bridgeToken, { method: 'POST', body: '{"messages":"no"}' })).status).toBe(400);
  });
});
