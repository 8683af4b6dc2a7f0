import { createAnthropic } from '@ai-sdk/anthropic';
import { createAiSdkProvider } from './ai-sdk-provider.ts';
import type { LlmProvider } from './provider.ts';

/** Anthropic's Messages API. */
export function createAnthropicProvider(options: { apiKey: string; model: string; baseUrl?: string; fetch?: typeof fetch }): LlmProvider {
  const provider = createAnthropic({ apiKey: options.apiKey, ...(options.baseUrl ? { baseURL: options.baseUrl } : {}), ...(options.fetch ? { fetch: options.fetch } : {}) });
  return createAiSdkProvider('anthropic', options.model, provider(options.model));
}
