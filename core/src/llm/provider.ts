export interface LlmMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** A function tool the model may call; `parameters` is a JSON Schema object. */
export interface LlmToolDefinition {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface LlmTurn {
  messages: LlmMessage[];
  tools?: LlmToolDefinition[];
}

export interface LlmToolCall {
  toolCallId: string;
  toolName: string;
  input: unknown;
}

export type LlmStreamPart =
  | { type: 'text-delta'; text: string }
  | { type: 'tool-call'; call: LlmToolCall }
  | { type: 'finish'; finishReason: string; usage?: LlmUsage };

/** Tokens one LLM call used, as the provider reported them (absent when it reported none). */
export interface LlmUsage {
  inputTokens: number;
  outputTokens: number;
}

export interface LlmResult {
  text: string;
  toolCalls: LlmToolCall[];
  provider: string;
  model: string;
  usage?: LlmUsage;
}

/**
 * One interface for every provider: a turn with history and tools, streamed (text deltas and
 * tool calls as they complete) or collected. The host holds the credentials; agents never do.
 */
export interface LlmProvider {
  name: string;
  model: string;
  stream(turn: LlmTurn, signal?: AbortSignal): AsyncIterable<LlmStreamPart>;
  complete(turn: LlmTurn, signal?: AbortSignal): Promise<LlmResult>;
}

/** Collects a stream into one result. */
export async function collect(provider: Pick<LlmProvider, 'name' | 'model' | 'stream'>, turn: LlmTurn, signal?: AbortSignal): Promise<LlmResult> {
  let text = '';
  const toolCalls: LlmToolCall[] = [];
  let usage: LlmUsage | undefined;
  for await (const part of provider.stream(turn, signal)) {
    if (part.type === 'text-delta') text += part.text;
    if (part.type === 'tool-call') toolCalls.push(part.call);
    if (part.type === 'finish' && part.usage) usage = addUsage(usage, part.usage);
  }
  return { text, toolCalls, provider: provider.name, model: provider.model, ...(usage ? { usage } : {}) };
}

/** Two usages summed; `undefined` counts as none. */
export function addUsage(a: LlmUsage | undefined, b: LlmUsage): LlmUsage {
  return { inputTokens: (a?.inputTokens ?? 0) + b.inputTokens, outputTokens: (a?.outputTokens ?? 0) + b.outputTokens };
}
