import { createHash } from 'node:crypto';
import type { ToolApproval } from '../agents/index.ts';
import { screenValidator } from '../agents/index.ts';
import { DomainError, isDatabaseUnreachable } from '../errors/index.ts';
import type { LlmProvider, LlmToolCall, LlmToolDefinition, LlmTurn } from '../llm/index.ts';
import type { Logger } from '../log/index.ts';
import { inSpan } from '../telemetry/index.ts';
import type { LoopRound, ToolLoopHost, ToolOutcome } from '../tool-loop/index.ts';
import { LeaseLostError, RunEndedError } from './event-log.ts';
import { agentMessage, type Interrupt, type RunEvent, type StepLlmCall, type StepRecorder, type ToolActivity, type ToolApprovalRecord, type ToolFieldChange, type ToolKind } from './model.ts';
import type { PendingToolStep } from './run-view.ts';
import { approvalDecision, approvalInterrupt, needsApproval, type ToolHints } from './tool-approval.ts';

/** The most characters of a tool's result the model is told (and the log keeps); more is cut, the same way every time. */
export const MAX_TOOL_RESULT_CHARS = 32_000;

/** How one call of a tool is made: its key (the same for every try of this call), and where its LLM calls and peer task go. */
export interface ToolCallContext {
  key: string;
  callId: string;
  signal: AbortSignal;
  recorder: StepRecorder;
  /** Runs an agent (here, else on a peer) for an agent tool, one level deeper than the step that calls it. */
  callAgent(agent: string, input: string): Promise<string>;
}

/** A tool an LLM step may call, resolved for one run: what the model is told of it, and how it is called. */
export interface ResolvedTool {
  /** As the flow names it: `@globex/summarizer`, `cms_b_post_update`, `mcp:docs/search`. */
  id: string;
  /** As the model calls it. */
  name: string;
  kind: ToolKind;
  description: string;
  parameters: Record<string, unknown>;
  hints: ToolHints;
  approval: ToolApproval;
  call(args: unknown, context: ToolCallContext): Promise<unknown>;
  /** For a content write: the typed field diff it would make, read before the call, shown with its approval. */
  preview?(args: unknown): Promise<ToolFieldChange[] | null>;
}

/** The function tool the model is offered for a resolved tool. */
export const toolDefinitionOf = (tool: ResolvedTool): LlmToolDefinition => ({ name: tool.name, description: tool.description, parameters: tool.parameters });

/** The tool a structured step answers through: its parameters are the step's output schema. */
export const respondDefinition = (respond: { name: string; schema: Record<string, unknown> }): LlmToolDefinition => ({
  name: respond.name,
  description: "Give the step's answer: call this once with a value of its schema, when you have what it asks for.",
  parameters: respond.schema,
});

/** The key a call carries to the other side: the same for every try of this call of this run, and nothing else. */
export const toolCallKeyOf = (stepKey: string, round: number, index: number) => createHash('sha256').update(`${stepKey}/tool/${round}/${index}`).digest('hex').slice(0, 32);

/**
 * Errors that are the platform's, not the tool's: the call's outcome is not known, so it is not
 * recorded; the run stops and is continued (the call is made again with the same key).
 */
function isInfrastructureFailure(error: unknown, signal: AbortSignal): boolean {
  return signal.aborted || error instanceof LeaseLostError || error instanceof RunEndedError || isDatabaseUnreachable(error) || (error instanceof DomainError && error.code === 'DEPENDENCY_UNAVAILABLE');
}

/** A tool's result as the model is told it and the log keeps it: the value, or its cut text when it is over the cap. */
export function boundedResult(value: unknown): unknown {
  const text = typeof value === 'string' ? value : JSON.stringify(value ?? null);
  if (text.length <= MAX_TOOL_RESULT_CHARS) return value ?? null;
  return { truncated: true, text: text.slice(0, MAX_TOOL_RESULT_CHARS) };
}

const outcomeOf = (result: Extract<ToolActivity, { phase: 'result' }>): ToolOutcome =>
  result.outcome === 'ok' ? { status: 'ok', value: result.output ?? null } : result.outcome === 'denied' ? { status: 'denied', ...(result.approval?.reason ? { reason: result.approval.reason } : {}) } : { status: 'error', message: result.error ?? 'failed' };

export interface ToolStepInput {
  index: number;
  stepId: string;
  stepKey: string;
  /** What the log holds of this step already (a continued step). */
  pending: PendingToolStep | undefined;
  tools: ResolvedTool[];
  /** A structured step's answer tool and the output schema its value must match. */
  respond?: { name: string; schema: Record<string, unknown> };
  llm: LlmProvider;
  signal: AbortSignal;
  /** LLM calls not stored with a round (the last round's): they go on the step's record. */
  recorder: StepRecorder;
  /** How an agent tool runs its agent (key, signal and recorder are the call's). */
  callAgent(agent: string, input: string, call: { key: string; signal: AbortSignal; recorder: StepRecorder }): Promise<string>;
  /** Stores events under the run's lease; `calls` are the LLM calls they carry, priced, for the run's usage. */
  store(events: RunEvent[], calls: StepLlmCall[]): Promise<void>;
  price(calls: StepLlmCall[]): Promise<StepLlmCall[]>;
  logger: Logger;
}

/**
 * The host side of one LLM step's tool loop (the Temporal activity discipline): each round that
 * asks for tools is stored before any call is made, each call is stored before it is made (with
 * its key) and its result after; answers come from the log when it holds them, so a step run
 * again (after a crash, a takeover or an approval) makes no call twice, and a call that was in
 * flight is made again with the same key. A call that needs approval asks for it (`paused()`)
 * instead of being made; the approval's answer decides it when the step runs again.
 */
export function createToolStepHost(input: ToolStepInput): ToolLoopHost & { paused(): Interrupt | null } {
  const byName = new Map(input.tools.map((tool) => [tool.name, tool]));
  /** What the log holds of the step, kept up to date as this host stores more: a try run again in this process (a runtime crash) replays it too. */
  const pending: PendingToolStep = structuredClone(input.pending ?? { index: input.index, rounds: [], started: {}, results: {}, approvals: {} });
  /** Rounds and calls under way: a try run again while one is still going waits for it instead of making it twice. */
  const underWay = new Map<string, Promise<unknown>>();
  const once = <T>(key: string, work: () => Promise<T>): Promise<T> => {
    const going = underWay.get(key) as Promise<T> | undefined;
    if (going) return going;
    const started = work().finally(() => underWay.delete(key));
    underWay.set(key, started);
    return started;
  };
  const waiting: { round: number; index: number; interrupt: Interrupt }[] = [];
  const status = (text: string) => ({ state: 'working' as const, timestamp: new Date().toISOString(), message: agentMessage(text) });
  const activity = (tool: ResolvedTool | undefined, name: string) => ({ index: input.index, tool: tool?.id ?? name, name, kind: tool?.kind ?? ('primitive' as ToolKind) });

  /** The tools of the turn as this host defines them (a turn from the runtime process names them; their definitions are the host's). */
  function ownTools(turn: LlmTurn): LlmTurn {
    const tools = (turn.tools ?? []).flatMap((definition) => {
      const tool = byName.get(definition.name);
      if (tool) return [toolDefinitionOf(tool)];
      return input.respond && definition.name === input.respond.name ? [respondDefinition(input.respond)] : [];
    });
    return { messages: turn.messages, ...(tools.length ? { tools } : {}), ...(turn.toolChoice ? { toolChoice: turn.toolChoice } : {}) };
  }

  function round(round: number, turn: LlmTurn): Promise<LoopRound> {
    return once(`round ${round}`, () => askRound(round, ownTools(turn)));
  }

  async function askRound(round: number, turn: LlmTurn): Promise<LoopRound> {
    const stored = pending.rounds[round];
    if (stored) return { text: stored.text, toolCalls: stored.toolCalls };
    const started = performance.now();
    const result = await input.llm.complete(turn, input.signal);
    const call: StepLlmCall = { provider: result.provider, model: result.model, inputTokens: result.usage?.inputTokens ?? 0, outputTokens: result.usage?.outputTokens ?? 0, durationMs: Math.round(performance.now() - started) };
    const toolCalls = result.toolCalls.map((c) => ({ toolCallId: c.toolCallId, toolName: c.toolName, input: c.input ?? {} }));
    if (toolCalls.length === 0) {
      input.recorder.calls.push(call);
      return { text: result.text, toolCalls };
    }
    const [priced = call] = await input.price([call]).catch(() => [call]);
    await input.store([{ type: 'round', index: input.index, stepId: input.stepId, round, text: result.text, toolCalls, call: priced }], [priced]);
    pending.rounds[round] = { text: result.text, toolCalls };
    return { text: result.text, toolCalls };
  }

  async function storeResult(result: Extract<ToolActivity, { phase: 'result' }>, text: string): Promise<ToolOutcome> {
    const calls = result.calls?.length ? await input.price(result.calls).catch(() => result.calls!) : [];
    const stored = { ...result, ...(calls.length ? { calls } : {}) };
    await input.store([{ type: 'status', status: status(text), final: false, tool: stored }], calls);
    pending.results[stored.callId] = stored;
    return outcomeOf(stored);
  }

  function call(round: number, index: number, requested: LlmToolCall): Promise<ToolOutcome> {
    return once(`call ${round}.${index}`, () => makeCall(round, index, requested));
  }

  async function makeCall(round: number, index: number, requested: LlmToolCall): Promise<ToolOutcome> {
    const callId = `${input.index}.${round}.${index}`;
    if (input.respond && requested.toolName === input.respond.name) {
      const validate = screenValidator(input.respond.schema);
      if (validate(requested.input)) return { status: 'answer', value: requested.input };
      const problems = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '(value)'} ${e.message ?? 'is invalid'}`).join('; ');
      return { status: 'error', message: `The answer does not match the output schema: ${problems}` };
    }
    const stored = pending.results[callId];
    if (stored) return outcomeOf(stored);
    const tool = byName.get(requested.toolName);
    const base = { ...activity(tool, requested.toolName), callId };
    if (!tool) {
      return storeResult({ phase: 'result', ...base, outcome: 'error', error: `No tool named ${requested.toolName}`, durationMs: 0 }, `${requested.toolName} is not a tool of this step`);
    }
    let args = requested.input;
    let approval: ToolApprovalRecord | undefined;
    if (needsApproval(tool.approval, tool.hints, args)) {
      const given = pending.approvals[callId];
      if (!given) {
        const changes = tool.preview ? await tool.preview(args).catch((error: unknown) => {
          input.logger.warn('could not read what a tool call would change; its approval shows the arguments only', { tool: tool.id, error });
          return null;
        }) : null;
        waiting.push({ round, index, interrupt: approvalInterrupt(input.stepId, { callId, tool: tool.id, kind: tool.kind, arguments: args, parameters: tool.parameters, ...(changes?.length ? { changes } : {}) }) });
        return { status: 'paused' };
      }
      const decision = approvalDecision(given.values);
      const by = given.by ? { by: given.by } : {};
      if (!decision.approved) {
        approval = { decision: 'denied', ...by, ...(decision.reason ? { reason: decision.reason } : {}) };
        return storeResult({ phase: 'result', ...base, outcome: 'denied', durationMs: 0, approval }, `${tool.id} was not allowed`);
      }
      const edited = decision.arguments !== undefined && JSON.stringify(decision.arguments) !== JSON.stringify(args);
      approval = { decision: edited ? 'edited' : 'approved', ...by };
      if (edited) args = decision.arguments;
    }
    const key = toolCallKeyOf(input.stepKey, round, index);
    if (pending.started[callId]) {
      input.logger.info('a tool call was under way when its worker stopped; making it again with the same key', { tool: tool.id, callId });
    } else {
      await input.store([{ type: 'status', status: status(`Calling ${tool.id}`), final: false, tool: { phase: 'call', ...base, key, arguments: args, ...(approval ? { approval } : {}) } }], []);
      pending.started[callId] = true;
    }
    const recorder: StepRecorder = { calls: [] };
    const started = performance.now();
    const attributes = { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': tool.name, 'gen_ai.tool.call.id': requested.toolCallId, 'gen_ai.tool.type': 'function', 'service.tool.id': tool.id, 'service.tool.kind': tool.kind, 'service.tool.call': callId };
    let output: unknown;
    try {
      output = await inSpan(`execute_tool ${tool.name}`, { attributes }, () => tool.call(args, { key, callId, signal: input.signal, recorder, callAgent: (agent, text) => input.callAgent(agent, text, { key, signal: input.signal, recorder }) }));
    } catch (error) {
      if (isInfrastructureFailure(error, input.signal)) throw error;
      const message = error instanceof DomainError ? error.message : 'The tool failed';
      if (!(error instanceof DomainError)) input.logger.warn('a tool call failed', { tool: tool.id, callId, error });
      const durationMs = Math.round(performance.now() - started);
      return storeResult({ phase: 'result', ...base, outcome: 'error', error: message, durationMs, ...(recorder.calls.length ? { calls: recorder.calls } : {}), ...(recorder.remote ? { remote: recorder.remote } : {}), ...(approval ? { approval } : {}) }, `${tool.id} failed: ${message}`);
    }
    const durationMs = Math.round(performance.now() - started);
    return storeResult(
      { phase: 'result', ...base, outcome: 'ok', output: boundedResult(output), durationMs, ...(recorder.calls.length ? { calls: recorder.calls } : {}), ...(recorder.remote ? { remote: recorder.remote } : {}), ...(approval ? { approval } : {}) },
      `${tool.id} answered`,
    );
  }

  return {
    round,
    call,
    /** The first call of the step that waits for approval, by round and call order: the run pauses for it. */
    paused() {
      const [first] = [...waiting].sort((a, b) => a.round - b.round || a.index - b.index);
      return first?.interrupt ?? null;
    },
  };
}
