import { DomainError } from '../errors/index.ts';
import type { LlmToolCall, LlmToolDefinition, LlmToolResult, LlmTurn, LlmTurnMessage } from '../llm/index.ts';

/** An LLM step with tools, as the loop runs it. */
export interface ToolLoopStep {
  instructions: string;
  /** The step's prompt, its template filled. */
  prompt: string;
  /** The tools the model is offered (the respond tool among them for a structured step). */
  tools: LlmToolDefinition[];
  /** The most rounds in which the model may call tools; the round after is offered none (or only `respond`). */
  maxToolRounds: number;
  /** A structured step answers by calling this tool with a value of its output schema. */
  respond?: string;
}

/** What one LLM round said: its text and the tool calls it asked for. */
export interface LoopRound {
  text: string;
  toolCalls: LlmToolCall[];
}

/** What a tool call came to, as the host answers the loop. */
export type ToolOutcome =
  | { status: 'ok'; value: unknown }
  | { status: 'error'; message: string }
  | { status: 'denied'; reason?: string }
  /** The respond tool's value, checked against the output schema: the step's answer. */
  | { status: 'answer'; value: unknown }
  /** The call waits for a human's approval: the run pauses and the loop stops here. */
  | { status: 'paused' };

/**
 * Where the loop's effects happen: the host answers each round and each call, from the run's log
 * when it holds them (a step continued after a crash, a pause or a takeover is replayed, not
 * redone), else by making them and storing them. The loop itself decides nothing but the order.
 */
export interface ToolLoopHost {
  round(round: number, turn: LlmTurn): Promise<LoopRound>;
  call(round: number, index: number, call: LlmToolCall): Promise<ToolOutcome>;
}

export type ToolLoopResult = { kind: 'answer'; output: unknown } | { kind: 'paused' };

/** Told to a structured step's model that answered in words. */
const ANSWER_THROUGH = (tool: string) => `Give your answer by calling the ${tool} tool with a value of its schema.`;

/**
 * The tool loop of one LLM step (the same code in the agent runtime process and in the web
 * process): ask the model with the tools, make the calls it asks for (those of one round
 * together), tell it the results, and ask again, until it answers without calling a tool, up to
 * `maxToolRounds` rounds with tools. Deterministic given the host's answers, so a replay from the
 * log takes the same path and makes no call twice.
 */
export async function runToolLoop(step: ToolLoopStep, host: ToolLoopHost): Promise<ToolLoopResult> {
  const messages: LlmTurnMessage[] = [
    { role: 'system', content: step.instructions },
    { role: 'user', content: step.prompt },
  ];
  for (let round = 0; ; round++) {
    const last = round >= step.maxToolRounds;
    const tools = last ? step.tools.filter((tool) => tool.name === step.respond) : step.tools;
    // A structured step with no other tool, or out of rounds, must answer through its respond tool.
    const onlyAnswer = step.respond !== undefined && tools.every((tool) => tool.name === step.respond);
    const toolChoice: LlmTurn['toolChoice'] = onlyAnswer ? { tool: step.respond! } : last ? 'none' : 'auto';
    const reply = await host.round(round, { messages: [...messages], ...(tools.length ? { tools, toolChoice } : { toolChoice: 'none' }) });
    if (reply.toolCalls.length === 0) {
      if (!step.respond) return { kind: 'answer', output: reply.text };
      if (last) throw new DomainError('UPSTREAM_FAILED', `The model answered in words where the step needs a value of its output schema (through ${step.respond})`);
      messages.push({ role: 'assistant', content: reply.text }, { role: 'user', content: ANSWER_THROUGH(step.respond) });
      continue;
    }
    if (last && !reply.toolCalls.some((call) => call.toolName === step.respond)) {
      throw new DomainError('UPSTREAM_FAILED', `The model kept calling tools after ${step.maxToolRounds} rounds (the flow's maxToolRounds)`);
    }
    messages.push({ role: 'assistant', content: reply.text, toolCalls: reply.toolCalls });
    // A structured answer ends the step before any other call of its round is made.
    const outcomes = new Map<number, ToolOutcome>();
    for (const [index, call] of reply.toolCalls.entries()) {
      if (call.toolName !== step.respond) continue;
      const outcome = await host.call(round, index, call);
      if (outcome.status === 'answer') return { kind: 'answer', output: outcome.value };
      outcomes.set(index, outcome);
    }
    const others = reply.toolCalls.flatMap((call, index) => (outcomes.has(index) ? [] : [{ call, index }]));
    const made = await Promise.all(others.map(({ call, index }) => host.call(round, index, call)));
    others.forEach(({ index }, at) => outcomes.set(index, made[at]!));
    if ([...outcomes.values()].some((outcome) => outcome.status === 'paused')) return { kind: 'paused' };
    reply.toolCalls.forEach((call, index) => {
      messages.push({ role: 'tool', toolCallId: call.toolCallId, toolName: call.toolName, result: resultOf(outcomes.get(index)!) });
    });
  }
}

function resultOf(outcome: ToolOutcome): LlmToolResult {
  switch (outcome.status) {
    case 'ok':
    case 'answer':
      return { type: 'json', value: outcome.value };
    case 'error':
      return { type: 'error', message: outcome.message };
    case 'denied':
      return { type: 'denied', ...(outcome.reason ? { reason: outcome.reason } : {}) };
    case 'paused':
      return { type: 'error', message: 'waiting for approval' };
  }
}
