import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { createAiSdkProvider } from './ai-sdk-provider.ts';
import type { LlmProvider } from './provider.ts';

/**
 * Any OpenAI-compatible chat completions endpoint: OpenAI, Azure, Ollama, vLLM, LM Studio.
 * `includeUsage` asks for `stream_options.include_usage`, so the stream's last chunk carries the token counts.
 */
export function createOpenAiCompatibleProvider(options: { baseUrl: string; apiKey?: string; model: string; fetch?: typeof fetch }): LlmProvider {
  const provider = createOpenAICompatible({ name: 'openai-compatible', baseURL: options.baseUrl, includeUsage: true, ...(options.apiKey ? { apiKey: options.apiKey } : {}), ...(options.fetch ? { fetch: options.fetch } : {}) });
  return createAiSdkProvider('openai-compatible', options.model, provider.chatModel(options.model));
}
