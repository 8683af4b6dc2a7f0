export interface LlmMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
  /** An assistant turn's tool calls (the model asked for them; their results follow as `tool` messages). */
  toolCalls?: LlmToolCall[];
}

/** What a tool call came to, as the model is told: its result, its failure, or a human's refusal. */
export type LlmToolResult = { type: 'json'; value: unknown } | { type: 'error'; message: string } | { type: 'denied'; reason?: string };

/** The result of one tool call of the assistant turn before it. */
export interface LlmToolResultMessage {
  role: 'tool';
  toolCallId: string;
  toolName: string;
  result: LlmToolResult;
}

/** One message of a turn: a system, user or assistant message, or a tool's result. */
export type LlmTurnMessage = LlmMessage | LlmToolResultMessage;

/** A function tool the model may call; `parameters` is a JSON Schema object. */
export interface LlmToolDefinition {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface LlmTurn {
  messages: LlmTurnMessage[];
  tools?: LlmToolDefinition[];
  /** Whether the model may (`auto`, the default), must not (`none`) or must (`required`, or `{ tool }`: that one) call a tool. */
  toolChoice?: LlmToolChoice;
}

export type LlmToolChoice = 'auto' | 'none' | 'required' | { tool: string };

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
