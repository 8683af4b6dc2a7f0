import { createAnthropicProvider, createOpenAiCompatibleProvider, createScriptedProvider, type LlmProvider, type LlmStreamPart } from '@service/core/llm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnthropicWire, startOpenAiWire, type WireServer } from '../helpers/llm-wire.ts';

const tools = [{ name: 'set_fields', description: 'Set field values on the draft', parameters: { type: 'object', properties: { edits: { type: 'array' } }, required: ['edits'] } }];
const turn = { messages: [{ role: 'system' as const, content: 'You edit posts.' }, { role: 'user' as const, content: 'Shorten the title.' }], tools };

let openai: WireServer;
let anthropic: WireServer;
beforeAll(async () => {
  [openai, anthropic] = await Promise.all([startOpenAiWire(), startAnthropicWire()]);
});
afterAll(async () => {
  await Promise.all([openai?.close(), anthropic?.close()]);
});

async function parts(provider: LlmProvider): Promise<LlmStreamPart[]> {
  const out: LlmStreamPart[] = [];
  for await (const part of provider.stream(turn)) out.push(part);
  return out;
}

/** Where each wire format carries the system prompt: the first chat message, or Anthropic's top-level `system`. */
type Request = Record<string, unknown>;
const openAiSystem = (request: Request) => (request.messages as { role: string; content: string }[]).filter((m) => m.role === 'system').map((m) => m.content);
const anthropicSystem = (request: Request) => {
  const system = request.system as string | { text: string }[] | undefined;
  return typeof system === 'string' ? [system] : (system ?? []).map((block) => block.text);
};

const cases: [string, () => WireServer, () => LlmProvider, (request: Request) => string[]][] = [
  ['openai-compatible', () => openai, () => createOpenAiCompatibleProvider({ baseUrl: openai.baseUrl, apiKey: 'sk-test', model: 'test-model' }), openAiSystem],
  ['anthropic', () => anthropic, () => createAnthropicProvider({ baseUrl: anthropic.baseUrl, apiKey: 'sk-ant-test', model: 'test-model' }), anthropicSystem],
];

describe.each(cases)('%s provider against its wire format', (name, wire, make, systemOf) => {
  it('streams text deltas in order, the system message sent as the wire’s system prompt', async () => {
    wire().next({ kind: 'text', chunks: ['Short', 'er ', 'title'] });
    const streamed = await parts(make());
    expect(streamed.filter((p) => p.type === 'text-delta').map((p) => (p as { text: string }).text)).toEqual(['Short', 'er ', 'title']);
    expect(streamed.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop' });
    const request = wire().requests.at(-1)!;
    expect(systemOf(request)).toEqual(['You edit posts.']);
    expect(JSON.stringify(request)).toContain('set_fields');
  });

  it('assembles a tool call from streamed argument deltas', async () => {
    wire().next({ kind: 'tool', name: 'set_fields', argumentChunks: ['{"edits":[{"op":"set",', '"field":"title","value":"New"}]}'] });
    const result = await make().complete(turn);
    expect(result).toMatchObject({ provider: name, model: 'test-model', toolCalls: [{ toolName: 'set_fields', input: { edits: [{ op: 'set', field: 'title', value: 'New' }] } }] });
  });

  it('reports the tokens the wire said the call used', async () => {
    wire().next({ kind: 'text', chunks: ['Done'], usage: { input: 1234, output: 56 } });
    const result = await make().complete(turn);
    expect(result.usage).toEqual({ inputTokens: 1234, outputTokens: 56 });
    wire().next({ kind: 'tool', name: 'set_fields', argumentChunks: ['{"edits":[]}'], usage: { input: 7, output: 11 } });
    const streamed = await parts(make());
    expect(streamed.at(-1)).toEqual({ type: 'finish', finishReason: 'tool-calls', usage: { inputTokens: 7, outputTokens: 11 } });
  });

  it.each([429, 500])('surfaces an upstream %i as a clean error', async (status) => {
    wire().next({ kind: 'status', status });
    const error = await make().complete(turn).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'DomainError', code: 'UPSTREAM_FAILED', message: expect.stringContaining(String(status)) });
  });
});

describe('the offline scripted provider', () => {
  it('turns documented edit instructions into a call of the offered tool, deterministically', async () => {
    const scripted = createScriptedProvider();
    const instructions = 'Set title to "A shorter title"; replace "teh" with "the" in content\nappend " (updated)" to excerpt';
    const result = await scripted.complete({ messages: [{ role: 'user', content: instructions }], tools });
    expect(result.toolCalls).toEqual([
      { toolCallId: 'scripted-1', toolName: 'set_fields', input: { edits: [
        { op: 'set', field: 'title', value: 'A shorter title' },
        { op: 'replace', field: 'content', find: 'teh', value: 'the' },
        { op: 'append', field: 'excerpt', value: ' (updated)' },
      ] } },
    ]);
    expect(await scripted.complete({ messages: [{ role: 'user', content: instructions }], tools })).toEqual(result);
    expect((await scripted.complete({ messages: [{ role: 'user', content: 'Hello there. How are you?' }] })).text).toBe('[scripted] Hello there. How are you?');
  });

  it('reports the usage it was given, and none otherwise', async () => {
    const metered = createScriptedProvider({ usage: { inputTokens: 10, outputTokens: 2 } });
    expect((await metered.complete({ messages: [{ role: 'user', content: 'Hi.' }] })).usage).toEqual({ inputTokens: 10, outputTokens: 2 });
    expect((await createScriptedProvider().complete({ messages: [{ role: 'user', content: 'Hi.' }] })).usage).toBeUndefined();
  });
});
