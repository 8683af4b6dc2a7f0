/** `gen_ai.provider.name` (OpenTelemetry GenAI conventions) of each provider kind. */
const GEN_AI_PROVIDER_NAMES: Record<string, string> = { 'openai-compatible': 'openai', anthropic: 'anthropic', scripted: 'scripted' };

export const genAiProviderName = (provider: string): string => GEN_AI_PROVIDER_NAMES[provider] ?? provider;
