import type { Span } from '@opentelemetry/api';
import { inSpan, SpanKind, startSpan, failSpan, inContext } from '../telemetry/index.ts';
import { genAiProviderName } from './gen-ai-names.ts';
import type { LlmProvider, LlmUsage } from './provider.ts';


/**
 * Each LLM turn is a span named by the OpenTelemetry GenAI conventions (`chat <model>`, with
 * `gen_ai.operation.name`, `gen_ai.provider.name`, `gen_ai.request.model`); the provider's HTTP
 * call is its child. The tokens the provider reported go on it as `gen_ai.usage.input_tokens` and
 * `gen_ai.usage.output_tokens`. No prompt or answer text is recorded.
 */
export function tracedProvider(provider: LlmProvider): LlmProvider {
  const attributes = () => ({ 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': genAiProviderName(provider.name), 'gen_ai.request.model': provider.model });
  return {
    name: provider.name,
    model: provider.model,
    complete: (turn, signal) =>
      inSpan(`chat ${provider.model}`, { kind: SpanKind.CLIENT, attributes: attributes() }, async (span) => {
        const result = await provider.complete(turn, signal);
        span.setAttribute('gen_ai.response.model', result.model);
        setUsage(span, result.usage);
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
          if (next.value.type === 'finish') setUsage(span, next.value.usage);
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

function setUsage(span: Span, usage: LlmUsage | undefined): void {
  if (!usage) return;
  span.setAttribute('gen_ai.usage.input_tokens', usage.inputTokens);
  span.setAttribute('gen_ai.usage.output_tokens', usage.outputTokens);
}
