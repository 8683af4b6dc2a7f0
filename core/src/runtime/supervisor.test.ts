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
      // A tool step's host: round 0 asks for the lookup tool, round 1 answers with what it returned.
      async round(handle: string, body: string) {
        const { round, turn } = JSON.parse(body) as { round: number; turn: { messages: { role: string; result?: { value: unknown } }[]; tools?: { name: string }[] } };
        hostCalls.push({ kind: `round ${handle} ${round}`, body: turn });
        if (round === 0) return { text: '', toolCalls: [{ toolCallId: 'call_1', toolName: 'lookup', input: { q: 'x' } }] };
        return { text: `found ${JSON.stringify(turn.messages.at(-1)!.result!.value)}`, toolCalls: [] };
      },
      async tool(handle: string, body: string) {
        hostCalls.push({ kind: `tool ${handle}`, body: JSON.parse(body) });
        return { status: 'ok', value: { hits: 2 } };
      },
    },
    logger,
  });
});

afterAll(async () => {
  await runtime?.stop();
});

const runLlmStep = (prompt: string) => runtime.runStep({ flow: { instructions: 'x' }, step: { kind: 'llm', id: 'a', prompt }, context: { input: '', outputs: {} }, stepKey: 'key-a' });
const step = async (prompt: string) => (await runLlmStep(prompt)).output as string;

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
    const call = async (agent: string) => (await runtime.runStep({ flow: { instructions: 'x' }, step: { kind: 'call', id: 'c', agent, input: 'in {{input}}' }, context: { input: 'put', outputs: {} }, stepKey: 'key-c' })).output;
    expect(await call('@acme/helper')).toBe('called with in put');
    await expect(call('@acme/missing')).rejects.toThrow('No agent @acme/missing on this host');
    expect(hostCalls.map((c) => c.kind)).toEqual(['llm', 'agent @acme/helper', 'agent @acme/missing']);
    expect(hostCalls[0]!.body).toEqual({ messages: [{ role: 'system', content: 'x' }, { role: 'user', content: 'over the channel' }] });
    // A sub-agent call carries the step's key, which the host hands on to a peer as the idempotency key.
    expect(hostCalls[1]!.body).toEqual({ input: 'in put', stepKey: 'key-c' });
  });

  it("runs an LLM step's tool loop, each round and each call a host call naming the step's host", async () => {
    hostCalls.length = 0;
    const definitions = [{ name: 'lookup', description: 'Looks up', parameters: { type: 'object', properties: { q: { type: 'string' } } } }];
    const result = await runtime.runStep({ flow: { instructions: 'x' }, step: { kind: 'llm', id: 't', prompt: 'find {{input}}' }, context: { input: 'it', outputs: {} }, stepKey: 'key-t', tools: { definitions, maxToolRounds: 4, handle: 'h-1' } });
    expect(result.output).toBe('found {"hits":2}');
    expect(hostCalls.map((c) => c.kind)).toEqual(['round h-1 0', 'tool h-1', 'round h-1 1']);
    // The runtime names the tools it offers; their definitions are the host's.
    expect(hostCalls[0]!.body).toEqual({ messages: [{ role: 'system', content: 'x' }, { role: 'user', content: 'find it' }], tools: [{ name: 'lookup' }], toolChoice: 'auto' });
    expect(hostCalls[1]!.body).toEqual({ round: 0, index: 0, call: { toolCallId: 'call_1', toolName: 'lookup', input: { q: 'x' } } });
  });

  it('replies to a step with the LLM calls it made, as the host answered them (an LLM turn, a sub-agent run)', async () => {
    const turn = await runLlmStep('count me');
    expect(turn.calls).toEqual([{ provider: 'openai-compatible', model: 'gpt-test', inputTokens: 12, outputTokens: 3, durationMs: expect.any(Number) }]);
    const called = await runtime.runStep({ flow: { instructions: 'x' }, step: { kind: 'call', id: 'c', agent: '@acme/helper', input: '{{input}}' }, context: { input: 'go', outputs: {} }, stepKey: 'key-c' });
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
