import { errorType, recordLlmCall } from '../telemetry/index.ts';
import { genAiProviderName } from './gen-ai-names.ts';
import type { LlmProvider, LlmUsage } from './provider.ts';

/**
 * Each LLM call counts in the GenAI metrics: `gen_ai.client.operation.duration` (with
 * `error.type` when it failed) and `gen_ai.client.token.usage` per token type, from the usage
 * the provider reported (nothing when it reported none). A no-op while metrics are off.
 */
export function meteredProvider(provider: LlmProvider): LlmProvider {
  const attributes = (errorType?: string) => ({ provider: genAiProviderName(provider.name), model: provider.model, ...(errorType ? { errorType } : {}) });
  const seconds = (started: number) => (performance.now() - started) / 1000;
  return {
    name: provider.name,
    model: provider.model,
    async complete(turn, signal) {
      const started = performance.now();
      try {
        const result = await provider.complete(turn, signal);
        recordLlmCall(attributes(), seconds(started), result.usage);
        return result;
      } catch (error) {
        recordLlmCall(attributes(errorType(error)), seconds(started));
        throw error;
      }
    },
    async *stream(turn, signal) {
      const started = performance.now();
      let usage: LlmUsage | undefined;
      try {
        for await (const part of provider.stream(turn, signal)) {
          if (part.type === 'finish') usage = part.usage;
          yield part;
        }
        recordLlmCall(attributes(), seconds(started), usage);
      } catch (error) {
        recordLlmCall(attributes(errorType(error)), seconds(started));
        throw error;
      }
    },
  };
}

