import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import { afterEach, describe, expect, it } from 'vitest';
import { startTracing, type Tracing } from '../trace-export/index.ts';
import { createScriptedProvider } from './scripted-provider.ts';
import { tracedProvider } from './traced-provider.ts';

let tracing: Tracing | null = null;
afterEach(async () => {
  await tracing?.shutdown();
  tracing = null;
});

describe('LLM call spans', () => {
  it('carry the tokens the provider reported (gen_ai.usage.*), streamed or collected', async () => {
    const exporter = new InMemorySpanExporter();
    tracing = startTracing({ env: {}, serviceName: 's', version: '1', role: 'service', exporter });
    const provider = tracedProvider(createScriptedProvider({ usage: { inputTokens: 120, outputTokens: 8 } }));
    const turn = { messages: [{ role: 'user' as const, content: 'Hello.' }] };
    await provider.complete(turn);
    for await (const part of provider.stream(turn)) void part;
    await tracing!.flush();
    const chats = exporter.getFinishedSpans().filter((span) => span.name === 'chat scripted-v1');
    expect(chats).toHaveLength(2);
    for (const span of chats) expect(span.attributes).toMatchObject({ 'gen_ai.usage.input_tokens': 120, 'gen_ai.usage.output_tokens': 8 });
  });
});
