import { runEventsAfter } from '@service/core/db';
import { useTestDatabase } from '@service/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startA2aHost } from '../helpers/a2a.ts';
import type { RunningService } from '../helpers/service-process.ts';

const t = useTestDatabase();
let service: RunningService;
let token: string;

beforeAll(async () => {
  ({ service, token } = await startA2aHost(t.db, { mongodbUri: t.uri, scope: '@acme', env: { SERVICE_LLM_SCRIPTED_DELAY_MS: '1500' } }));
});

afterAll(async () => {
  await service?.stop();
});

const runtimePids = () => [...service.output().matchAll(/agent runtime ready \(pid (\d+)\)/g)].map((m) => Number(m[1]));

describe('the agent runtime process', () => {
  it('runs agent steps out of the web process, and is restarted after a crash with the step run again', async () => {
    await expect.poll(() => runtimePids().length, { timeout: 15_000 }).toBe(1);
    const [firstPid] = runtimePids();

    const response = await fetch(`${service.url}/api/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'message/stream', params: { message: { kind: 'message', messageId: crypto.randomUUID(), role: 'user', parts: [{ kind: 'text', text: 'Crash the runtime. Then recover.' }] } } }),
    });
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    let killed = false;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      // The run is stored working at once; its step then goes to the runtime, whose LLM turn
      // takes 1.5 s: kill the runtime while the step is in it.
      if (!killed && text.includes('"state":"working"')) {
        killed = true;
        await new Promise((resolve) => setTimeout(resolve, 500));
        process.kill(firstPid!, 'SIGKILL');
      }
    }
    expect(killed).toBe(true);
    const results = text.split('\n').filter((l) => l.startsWith('data: ')).map((l) => (JSON.parse(l.slice(6)) as { result: { kind: string; status?: { state: string }; artifact?: { parts: { text: string }[] } } }).result);
    expect(results.at(-1)).toMatchObject({ kind: 'status-update', status: { state: 'completed' } });
    expect(results.find((r) => r.kind === 'artifact-update')!.artifact!.parts[0]!.text).toBe('[scripted] Summarize: Crash the runtime. Then recover.');

    // The step's record: run twice (the crash, then the runtime after it), with the LLM call the
    // runtime's reply reported for the try that answered.
    const runId = (results[0] as unknown as { id: string }).id;
    const steps = (await t.db.models.RunEvent.find({ _id: runEventsAfter(runId, 0) }).sort({ _id: 1 }).lean()).map((row) => JSON.parse(row.event) as { type: string }).filter((event) => event.type === 'step');
    expect(steps).toEqual([expect.objectContaining({ stepId: 'summarize', kind: 'llm', attempts: 2, calls: [{ provider: 'scripted', model: 'scripted-v1', inputTokens: 0, outputTokens: 0, durationMs: expect.any(Number) }] })]);

    expect(service.output()).toContain('agent runtime exited');
    expect(service.output()).toContain('agent runtime crashed during a step; running it again');
    await expect.poll(() => runtimePids().length).toBe(2);
    expect(runtimePids()[1]).not.toBe(firstPid);
  });
});
