import type { ServiceConfig } from '../config/index.ts';
import type { OutboundHttp } from '../http/index.ts';
import type { Logger } from '../log/index.ts';
import { createAnthropicProvider } from './anthropic.ts';
import { createOpenAiCompatibleProvider } from './openai-compatible.ts';
import { tracedProvider } from './traced-provider.ts';
import { meteredProvider } from './metered-provider.ts';
import type { LlmProvider } from './provider.ts';
import { createScriptedProvider } from './scripted-provider.ts';

/** The configured provider; without one, the offline scripted provider, said plainly in the log. */
export function selectLlmProvider(config: ServiceConfig, logger: Logger, http: OutboundHttp): LlmProvider {
  return tracedProvider(meteredProvider(untracedProvider(config, logger, http)));
}

function untracedProvider(config: ServiceConfig, logger: Logger, http: OutboundHttp): LlmProvider {
  const { provider, apiKey, baseUrl, model } = config.llm;
  // Answers stream: the timeout covers the wait for the first byte (a model may think a while).
  const fetch = http.fetchWith({ streaming: true, timeoutMs: 120_000, maxBytes: 32 * 1024 * 1024 });
  if (provider === 'openai-compatible' && baseUrl && model) {
    logger.info(`LLM provider: openai-compatible at ${baseUrl}, model ${model}`);
    return createOpenAiCompatibleProvider({ baseUrl, model, fetch, ...(apiKey ? { apiKey } : {}) });
  }
  if (provider === 'anthropic' && apiKey && model) {
    logger.info(`LLM provider: anthropic, model ${model}`);
    return createAnthropicProvider({ apiKey, model, fetch, ...(baseUrl ? { baseUrl } : {}) });
  }
  if (provider !== 'scripted') logger.warn(`SERVICE_LLM_PROVIDER=${provider} lacks its base URL, API key or model: using the offline scripted provider`);
  else logger.info('LLM provider: scripted (offline, deterministic; set SERVICE_LLM_PROVIDER to use a real model)');
  return createScriptedProvider({ delayMs: config.llm.scriptedDelayMs });
}
