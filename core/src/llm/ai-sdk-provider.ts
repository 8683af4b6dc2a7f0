import { APICallError, jsonSchema, streamText, tool, type LanguageModel, type LanguageModelUsage, type ModelMessage, type ToolChoice, type ToolResultPart, type ToolSet } from 'ai';
import { DomainError } from '../errors/index.ts';
import { collect, type LlmProvider, type LlmStreamPart, type LlmToolChoice, type LlmToolResult, type LlmTurn, type LlmTurnMessage, type LlmUsage } from './provider.ts';

/**
 * A provider backed by the Vercel AI SDK (ADR 0006): the SDK speaks the vendor's wire format;
 * this maps our turn to its call and its stream parts back to ours. Tools are offered without
 * `execute`, so calls come back to the caller instead of running here. Upstream failures become
 * one clean error naming the status; nothing is retried silently.
 */
export function createAiSdkProvider(name: string, modelId: string, model: LanguageModel): LlmProvider {
  async function* stream(turn: LlmTurn, signal?: AbortSignal): AsyncGenerator<LlmStreamPart> {
    const tools: ToolSet = {};
    for (const definition of turn.tools ?? []) {
      tools[definition.name] = tool({ description: definition.description, inputSchema: jsonSchema(definition.parameters as Parameters<typeof jsonSchema>[0]) });
    }
    const system = turn.messages.flatMap((m) => (m.role === 'system' ? [m.content] : [])).join('\n\n');
    const result = streamText({
      model,
      ...(system ? { instructions: system } : {}),
      messages: modelMessages(turn.messages),
      ...(turn.tools?.length ? { tools, ...(turn.toolChoice ? { toolChoice: toolChoiceOf(turn.toolChoice) } : {}) } : {}),
      maxRetries: 0,
      // The error arrives as an `error` part below; the SDK's default handler would also print it.
      onError: () => undefined,
      ...(signal ? { abortSignal: signal } : {}),
    });
    for await (const part of result.stream) {
      if (part.type === 'text-delta') yield { type: 'text-delta', text: part.text };
      else if (part.type === 'tool-call') yield { type: 'tool-call', call: { toolCallId: part.toolCallId, toolName: part.toolName, input: part.input } };
      else if (part.type === 'finish') yield { type: 'finish', finishReason: part.finishReason, ...usageOf(part.totalUsage) };
      else if (part.type === 'error') throw upstreamError(name, part.error);
    }
  }

  const provider: LlmProvider = {
    name,
    model: modelId,
    stream: (turn, signal) => stream(turn, signal),
    complete: (turn, signal) => collect(provider, turn, signal),
  };
  return provider;
}

/**
 * Our messages as the SDK's: an assistant turn with its tool calls as parts, and the results of
 * one turn's calls together in one tool message (as the providers' formats group them).
 */
function modelMessages(messages: readonly LlmTurnMessage[]): ModelMessage[] {
  const out: ModelMessage[] = [];
  for (const message of messages) {
    if (message.role === 'system') continue;
    if (message.role === 'tool') {
      const part: ToolResultPart = { type: 'tool-result', toolCallId: message.toolCallId, toolName: message.toolName, output: toolOutput(message.result) };
      const last = out.at(-1);
      if (last?.role === 'tool') last.content.push(part);
      else out.push({ role: 'tool', content: [part] });
      continue;
    }
    if (message.role === 'assistant' && message.toolCalls?.length) {
      out.push({
        role: 'assistant',
        content: [
          ...(message.content ? [{ type: 'text' as const, text: message.content }] : []),
          ...message.toolCalls.map((call) => ({ type: 'tool-call' as const, toolCallId: call.toolCallId, toolName: call.toolName, input: call.input })),
        ],
      });
      continue;
    }
    out.push({ role: message.role, content: message.content });
  }
  return out;
}

function toolOutput(result: LlmToolResult): ToolResultPart['output'] {
  if (result.type === 'error') return { type: 'error-text', value: result.message };
  if (result.type === 'denied') return { type: 'execution-denied', ...(result.reason ? { reason: result.reason } : {}) };
  return { type: 'json', value: (result.value ?? null) as never };
}

function toolChoiceOf(choice: LlmToolChoice): ToolChoice<ToolSet> {
  return typeof choice === 'string' ? choice : { type: 'tool', toolName: choice.tool };
}

/** The SDK's usage as ours; absent when the provider reported no token counts. */
function usageOf(usage: LanguageModelUsage | undefined): { usage?: LlmUsage } {
  if (usage?.inputTokens === undefined && usage?.outputTokens === undefined) return {};
  return { usage: { inputTokens: usage.inputTokens ?? 0, outputTokens: usage.outputTokens ?? 0 } };
}

function upstreamError(provider: string, error: unknown): DomainError {
  if (APICallError.isInstance(error)) {
    const status = error.statusCode;
    const what = status === 429 ? 'rate limited' : status && status >= 500 ? 'server error' : 'request refused';
    return new DomainError('UPSTREAM_FAILED', `The ${provider} LLM answered ${status ?? 'with an error'} (${what})`, { cause: error });
  }
  return new DomainError('UPSTREAM_FAILED', `The ${provider} LLM call failed`, { cause: error });
}
