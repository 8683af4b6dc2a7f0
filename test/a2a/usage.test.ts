import { useTestDatabase } from '@service/core/testing';
import { testServices } from '@service/core/testing/services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startA2aHost } from '../helpers/a2a.ts';
import { startOpenAiWire, type WireServer } from '../helpers/llm-wire.ts';
import type { RunningService } from '../helpers/service-process.ts';
import { readSseFrames } from '../helpers/sse.ts';

/**
 * A caller sees what its task cost: the service runs its LLM turns against an OpenAI-compatible
 * endpoint (a local server speaking the real streaming format, usage in its last chunk), and the
 * task carries the run's usage in `metadata.usage`, priced from the operator's table: on the
 * final status of the stream and on GetTask, in both protocol versions.
 */
const t = useTestDatabase();
let service: RunningService;
let token: string;
let llm: WireServer;

beforeAll(async () => {
  llm = await startOpenAiWire();
  const admin = { type: 'ui', id: 'admin', email: 'admin@acme.test', role: 'admin' } as const;
  await testServices(t.db).prices.set(admin as never, [{ model: 'test-model', inputPerMillion: 2, outputPerMillion: 10 }]);
  ({ service, token } = await startA2aHost(t.db, {
    mongodbUri: t.uri,
    scope: '@acme',
    env: { SERVICE_LLM_PROVIDER: 'openai-compatible', SERVICE_LLM_BASE_URL: llm.baseUrl, SERVICE_LLM_API_KEY: 'sk-test', SERVICE_LLM_MODEL: 'test-model', SERVICE_OUTBOUND_ALLOW_PRIVATE: 'true' },
  }));
});

afterAll(async () => {
  await service?.stop();
  await llm?.close();
});

const usage = { calls: 1, inputTokens: 5_000, outputTokens: 300, costUsd: 0.013 };

describe('the run’s usage on the A2A task', () => {
  it('ends the stream with it on the final status, and GetTask (v0.3 and v1.0) carries it', async () => {
    llm.next({ kind: 'text', chunks: ['A short ', 'summary.'], usage: { input: 5_000, output: 300 } });
    const response = await fetch(`${service.url}/api/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'message/stream', params: { message: { kind: 'message', messageId: crypto.randomUUID(), role: 'user', parts: [{ kind: 'text', text: 'Summarize me.' }], metadata: { skillId: '@acme/summarizer' } } } }),
    });
    const results = (await readSseFrames(response)).map((frame) => (frame.data as { result: Record<string, unknown> }).result);
    expect(results.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' }, metadata: { usage } });
    const taskId = String(results[0]!.id);

    const get = await fetch(`${service.url}/api/a2a`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tasks/get', params: { id: taskId } }) });
    expect(((await get.json()) as { result: { metadata: unknown } }).result.metadata).toEqual({ agent: '@acme/summarizer', usage });

    const v1 = await fetch(`${service.url}/api/a2a/tasks/${taskId}`, { headers: { 'a2a-version': '1.0', authorization: `Bearer ${token}` } });
    expect(((await v1.json()) as { metadata: unknown }).metadata).toEqual({ agent: '@acme/summarizer', usage });
    // The service asked the endpoint for usage, as OpenAI's streaming API wants it asked.
    expect(llm.requests.at(-1)).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });
});
