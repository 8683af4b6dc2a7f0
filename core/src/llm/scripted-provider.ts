import type { LlmProvider } from './provider.ts';

/**
 * The offline provider used when no LLM API key is configured: deterministic, no network.
 * It answers with the first sentences of the last user message, marked as scripted, so flows
 * run end to end and the UI can say plainly that no real model is connected.
 */
export function createScriptedProvider(options: { delayMs?: number } = {}): LlmProvider {
  return {
    name: 'scripted',
    async complete({ messages }, signal) {
      if (options.delayMs) await new Promise((resolve) => setTimeout(resolve, options.delayMs));
      if (signal?.aborted) throw new Error('aborted');
      const last = [...messages].reverse().find((m) => m.role === 'user')?.content ?? '';
      const sentences = last.replace(/\s+/g, ' ').trim().match(/[^.!?]+[.!?]?/g) ?? [''];
      const gist = sentences.slice(0, 2).map((s) => s.trim()).join(' ').slice(0, 400);
      return { text: `[scripted] ${gist}`, provider: 'scripted', model: 'scripted-v1' };
    },
  };
}
