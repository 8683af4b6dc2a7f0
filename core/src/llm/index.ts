export type { LlmProvider, LlmMessage, LlmTurn, LlmResult } from './provider.ts';
export { createScriptedProvider } from './scripted-provider.ts';
