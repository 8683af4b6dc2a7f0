export { addUsage, collect, type LlmUsage, type LlmProvider, type LlmMessage, type LlmTurnMessage, type LlmToolResult, type LlmToolResultMessage, type LlmToolChoice, type LlmTurn, type LlmResult, type LlmStreamPart, type LlmToolCall, type LlmToolDefinition } from './provider.ts';
export { createScriptedProvider, parseEditInstructions, scriptedPhrasesHint, type ScriptedEdit } from './scripted-provider.ts';
export { createOpenAiCompatibleProvider } from './openai-compatible.ts';
export { createAnthropicProvider } from './anthropic.ts';
export { selectLlmProvider } from './select-provider.ts';
export { proposeEdits, setFieldsTool } from './field-edits.ts';
export { meteredProvider } from './metered-provider.ts';
