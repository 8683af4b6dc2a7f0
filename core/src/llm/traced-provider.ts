import { inSpan, SpanKind, startSpan, failSpan, inContext } from '../telemetry/index.ts';
import type { LlmProvider } from './provider.ts';

const SYSTEMS: Record<string, string> = { 'openai-compatible': 'openai', anthropic: 'anthropic', scripted: 'scripted' };

/**
 * Each LLM turn is a span named by the OpenTelemetry GenAI conventions (`chat <model>`, with
 * `gen_ai.operation.name`, `gen_ai.provider.name`, `gen_ai.request.model`); the provider's HTTP
 * call is its child. No prompt or answer text is recorded.
 */
export function tracedProvider(provider: LlmProvider): LlmProvider {
  const attributes = () => ({ 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': SYSTEMS[provider.name] ?? provider.name, 'gen_ai.request.model': provider.model });
  return {
    name: provider.name,
    model: provider.model,
    complete: (turn, signal) =>
      inSpan(`chat ${provider.model}`, { kind: SpanKind.CLIENT, attributes: attributes() }, async (span) => {
        const result = await provider.complete(turn, signal);
        span.setAttribute('gen_ai.response.model', result.model);
        if (result.toolCalls.length) span.setAttribute('service.llm.tool_calls', result.toolCalls.length);
        return result;
      }),
    async *stream(turn, signal) {
      const { span, context } = startSpan(`chat ${provider.model}`, { kind: SpanKind.CLIENT, attributes: attributes() });
      try {
        const parts = inContext(context, () => provider.stream(turn, signal))[Symbol.asyncIterator]();
        for (;;) {
          const next = await inContext(context, () => parts.next());
          if (next.done) break;
          yield next.value;
        }
      } catch (error) {
        failSpan(span, error);
        throw error;
      } finally {
        span.end();
      }
    },
  };
}
