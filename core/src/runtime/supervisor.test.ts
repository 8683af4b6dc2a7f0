import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DomainError } from '../errors/index.ts';
import { createLogger, type LogRecord } from '../log/index.ts';
import { startAgentRuntime, type AgentRuntime } from './supervisor.ts';

let runtime: AgentRuntime;
/** The runtime's calls into the host, as the host's bridge calls received them. */
const hostCalls: { kind: string; body: unknown }[] = [];
/** The supervisor's log, and a wait for a line as it is logged. */
const listeners = new Set<(record: LogRecord) => void>();
const logger = createLogger({ level: 'debug', sink: (record) => listeners.forEach((listener) => listener(record)) });
const logged = (match: RegExp) => new Promise<LogRecord>((resolve) => listeners.add((record) => void (match.test(record.message) && resolve(record))));

beforeAll(async () => {
  // The runtime is given no address and no token of the host: its one way back is the IPC channel.
  runtime = startAgentRuntime({
    host: {
      async llm(body: string) {
        const { messages } = JSON.parse(body) as { messages: { content: string }[] };
        hostCalls.push({ kind: 'llm', body: JSON.parse(body) });
        return { text: `echo: ${messages.at(-1)!.content}`, provider: 'openai-compatible', model: 'gpt-test', usage: { inputTokens: 12, outputTokens: 3 } };
      },
      async agent(vendor: string, slug: string, body: string) {
        hostCalls.push({ kind: `agent @${vendor}/${slug}`, body: JSON.parse(body) });
        if (slug === 'missing') throw new DomainError('NOT_FOUND', `No agent @${vendor}/${slug} on this host`);
        return { output: `called with ${(JSON.parse(body) as { input: string }).input}`, calls: [{ provider: 'anthropic', model: 'claude-test', inputTokens: 40, outputTokens: 9, durationMs: 5 }] };
      },
    },
    logger,
  });
});

afterAll(async () => {
  await runtime?.stop();
});

const runLlmStep = (prompt: string) => runtime.runStep({ flow: { instructions: 'x' }, step: { kind: 'llm', id: 'a', prompt }, context: { input: '', outputs: {} } });
const step = async (prompt: string) => (await runLlmStep(prompt)).output;

/** As the executor does: a step whose runtime crashed under it is run again, twice at most. */
async function stepWithRetries(prompt: string): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await step(prompt);
    } catch (error) {
      if (attempt >= 2 || (error as Error).name !== 'RuntimeCrashedError') throw error;
    }
  }
}

describe('the agent runtime supervisor', () => {
  it("answers the runtime's LLM turns and sub-agent calls over its IPC channel (it has no address or token of the host)", async () => {
    expect(await step('over the channel')).toBe('echo: over the channel');
    const call = async (agent: string) => (await runtime.runStep({ flow: { instructions: 'x' }, step: { kind: 'call', id: 'c', agent, input: 'in {{input}}' }, context: { input: 'put', outputs: {} } })).output;
    expect(await call('@acme/helper')).toBe('called with in put');
    await expect(call('@acme/missing')).rejects.toThrow('No agent @acme/missing on this host');
    expect(hostCalls.map((c) => c.kind)).toEqual(['llm', 'agent @acme/helper', 'agent @acme/missing']);
    expect(hostCalls[0]!.body).toEqual({ messages: [{ role: 'system', content: 'x' }, { role: 'user', content: 'over the channel' }] });
  });

  it('replies to a step with the LLM calls it made, as the host answered them (an LLM turn, a sub-agent run)', async () => {
    const turn = await runLlmStep('count me');
    expect(turn.calls).toEqual([{ provider: 'openai-compatible', model: 'gpt-test', inputTokens: 12, outputTokens: 3, durationMs: expect.any(Number) }]);
    const called = await runtime.runStep({ flow: { instructions: 'x' }, step: { kind: 'call', id: 'c', agent: '@acme/helper', input: '{{input}}' }, context: { input: 'go', outputs: {} } });
    expect(called.calls).toEqual([{ provider: 'anthropic', model: 'claude-test', inputTokens: 40, outputTokens: 9, durationMs: 5 }]);
  });

  it('a step sent as the runtime dies fails as a crash (never an unhandled EPIPE in the host), and its retry reaches the next runtime', async () => {
    expect(await step('first')).toBe('echo: first');
    for (let round = 0; round < 3; round++) {
      const pid = runtime.pid()!;
      process.kill(pid, 'SIGKILL');
      // No wait: the step goes out while the channel dies, before the exit is reported.
      expect(await stepWithRetries(`after kill ${round}`)).toBe(`echo: after kill ${round}`);
      expect(runtime.pid()).not.toBe(pid);
    }
    expect(runtime.restarts()).toBe(3);
  }, 30_000);

  it('stops at once when its runtime was killed by a signal (an exit with no code), and starts no other', async () => {
    const killed = runtime.pid()!;
    // The restart the exit schedules runs on a fake clock, so whether stop() cancels it is seen, not raced.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      // Logged by the exit handler as it schedules the restart: the runtime is gone and none is back yet.
      const exited = logged(/^agent runtime exited \(SIGKILL\)/);
      process.kill(killed, 'SIGKILL');
      await exited;
      await expect(runtime.stop()).resolves.toBeUndefined();
      vi.runAllTimers();
      expect(runtime.pid()).toBe(killed);
    } finally {
      vi.useRealTimers();
    }
    expect(() => process.kill(killed, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
  });
});
