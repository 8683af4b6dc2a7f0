/**
 * The run model: what a run is, what it says and what happens to it, in the service's own terms.
 * Protocols (A2A 1.0 and 0.3, AG-UI) translate to and from it at their seams; storage keeps it
 * as written here, so a protocol version can come or go without touching stored runs.
 */

export const RUN_STATES = ['submitted', 'working', 'input-required', 'auth-required', 'completed', 'canceled', 'failed', 'rejected', 'unknown'] as const;
export type RunState = (typeof RUN_STATES)[number];
/** A run in one of these has ended for good: nothing is stored after its terminal event. */
export const TERMINAL_STATES: readonly RunState[] = ['completed', 'canceled', 'failed', 'rejected'];
/** Waiting for someone: a person's answer (or credentials); the run goes on once given. */
export const INTERRUPTED_STATES: readonly RunState[] = ['input-required', 'auth-required'];
/** A run in one of these is being worked on (the recovery pass continues it if its worker dies). */
export const ACTIVE_STATES: readonly RunState[] = ['submitted', 'working'];

export const isTerminal = (state: RunState): boolean => TERMINAL_STATES.includes(state);
/** Nothing more happens until someone acts: finished, or waiting for an answer. */
export const isSettled = (state: RunState): boolean => isTerminal(state) || INTERRUPTED_STATES.includes(state);

export type Metadata = Record<string, unknown>;

export type RunPart =
  | { type: 'text'; text: string; metadata?: Metadata }
  /** Any JSON value. */
  | { type: 'data'; data: unknown; metadata?: Metadata }
  /** A file by content (`bytes`, base64) or by reference (`url`). */
  | { type: 'file'; name?: string; mediaType?: string; bytes?: string; url?: string; metadata?: Metadata };

export interface RunMessage {
  id: string;
  role: 'user' | 'agent';
  parts: RunPart[];
  contextId?: string;
  runId?: string;
  referenceRunIds?: string[];
  extensions?: string[];
  metadata?: Metadata;
}

export interface RunStatus {
  state: RunState;
  /** ISO 8601. */
  timestamp: string;
  message?: RunMessage;
}

export interface RunArtifact {
  id: string;
  name?: string;
  description?: string;
  parts: RunPart[];
  metadata?: Metadata;
}

export type ToolKind = 'agent' | 'primitive' | 'mcp';

/** One field a content write changes, as an approval shows it (the widget's typed field diff). */
export interface ToolFieldChange {
  field: string;
  before: unknown;
  after: unknown;
}

/** The tool call a pause asks a human to approve. */
export interface ToolCallUnderReview {
  /** The call's id in this run (`<step index>.<round>.<call index>`). */
  callId: string;
  /** The tool as the flow names it (`cms_b_post_update`, `@globex/summarizer`, `mcp:docs/search`). */
  tool: string;
  kind: ToolKind;
  arguments: unknown;
  /** For a content write: what it would change, read from the item before the call. */
  changes?: ToolFieldChange[];
}

/** Who decided about a tool call that needed approval, and what. */
export interface ToolApprovalRecord {
  decision: 'approved' | 'edited' | 'denied';
  by?: RunActor;
  reason?: string;
}

/**
 * A tool call of an LLM step, as it is stored: `call` before the call is made (with the key it
 * carries to the other side), `result` after (its value as the model was told it, its failure, or
 * a human's refusal). Both are status events of the running run, so callers see each call as it
 * happens; the executor continues a step from them without making a call twice.
 */
export type ToolActivity =
  | { phase: 'call'; index: number; callId: string; key: string; tool: string; name: string; kind: ToolKind; arguments: unknown; approval?: ToolApprovalRecord }
  | {
      phase: 'result';
      index: number;
      callId: string;
      tool: string;
      name: string;
      kind: ToolKind;
      outcome: 'ok' | 'error' | 'denied';
      output?: unknown;
      error?: string;
      durationMs: number;
      /** LLM calls the tool made (a local agent's turns), counted in the run's usage. */
      calls?: StepLlmCall[];
      /** The peer task that answered an agent tool. */
      remote?: RemoteStepTask;
      approval?: ToolApprovalRecord;
    };

/** A tool call an LLM round asked for, as the model gave it. */
export interface StoredToolCall {
  toolCallId: string;
  toolName: string;
  input: unknown;
}

/** What a paused run asks of a person: a screen whose JSON Schema describes the answer. */
export interface Interrupt {
  stepId: string;
  screenId: string;
  title: string;
  schema: Record<string, unknown>;
  /** What is being answered about: earlier steps' outputs by step id, as bounded text. */
  context?: Record<string, string>;
  /** The answer shapes a generic client may send (see a2a/hitl-answer.ts). */
  accepts?: string[];
  /** Where the pause really is, for a run bridged from a peer: the peer's task id. */
  remoteRunId?: string;
  /** A pause before a tool call: the call to approve, deny or change. */
  tool?: ToolCallUnderReview;
  /**
   * A peer's own pause (an A2A agent not of this project: no INTERRUPT of ours): answered on its
   * task as its SDK expects, in words (`text`) or with the values of the form its message carried
   * as a JSON Schema (`form`).
   */
  peer?: 'text' | 'form';
}

/** One LLM call made during a step (a sub-agent's own turns included), for usage and cost. */
export interface StepLlmCall {
  provider: string;
  model: string;
  inputTokens: number;
  outputTokens: number;
  durationMs: number;
  /** In US dollars, from the operator's price table when the call was made; absent when the model has no price. */
  costUsd?: number;
}

/** What one step (or one tool call) gathers while it runs: every LLM call (a sub-agent's included) and the peer task that answered it. */
export interface StepRecorder {
  calls: StepLlmCall[];
  remote?: RemoteStepTask;
}

/** A run's LLM usage so far: the sum of its steps' calls. */
export interface RunUsage {
  calls: number;
  inputTokens: number;
  outputTokens: number;
  /** Sum of the priced calls' costs; absent when no call had a price. */
  costUsd?: number;
}

/** Who did something to a run (started it, answered its pause): an actor type and id, as sessions and tokens name them. */
export interface RunActor {
  type: string;
  id: string;
}

/** A person's answer to a pause. */
export interface Answer {
  screenId: string;
  values: Record<string, unknown>;
}

/** Where a run bridged from a peer comes from. */
export interface RemoteLink {
  peerId: string;
  skillId: string;
}

/**
 * The task on a peer that answered a call step, and the usage the peer reported for it (its
 * task's `metadata.usage`): the peer's calls, paid for there, so never added to this run's.
 */
export interface RemoteStepTask {
  peerId: string;
  taskId: string;
  usage?: RunUsage;
}

export type RunEvent =
  /** The run as it was created: always event 1. */
  | { type: 'created'; runId: string; contextId: string; agent: string; input: RunMessage; status: RunStatus }
  /**
   * The run's status changed. `final` ends a stream (a pause or an end). A pause carries its
   * `interrupt`; the status that takes an answer carries it (`answer`) and the caller's message
   * (`received`), which joins the run's history before the status message.
   */
  | { type: 'status'; status: RunStatus; final: boolean; interrupt?: Interrupt; answer?: StoredAnswer; received?: RunMessage; metadata?: Metadata; tool?: ToolActivity }
  | { type: 'artifact'; artifact: RunArtifact; append?: boolean; lastChunk?: boolean; metadata?: Metadata }
  /** A message that is not a status (a peer may stream one). */
  | { type: 'message'; message: RunMessage; metadata?: Metadata }
  /**
   * Internal: a step finished with this output (the executor continues after it). Never shown to
   * callers; the run timeline reads its timing and usage. Fields after `output` are absent on
   * steps stored by earlier versions. `failed`: the step that failed the run, stored after the
   * failed status with the calls it made (null output; the run's position does not move).
   */
  | { type: 'step'; index: number; stepId: string; output: unknown; kind?: 'llm' | 'call' | 'ask' | 'reply'; skipped?: true; failed?: true; startedAt?: string; durationMs?: number; attempts?: number; calls?: StepLlmCall[]; remote?: RemoteStepTask }
  /**
   * Internal: an LLM round of a step with tools that asked for tool calls, stored before any of
   * them is made (with the round's LLM call, counted in the run's usage). A step continued later
   * replays its stored rounds instead of asking the model again.
   */
  | { type: 'round'; index: number; stepId: string; round: number; text: string; toolCalls: StoredToolCall[]; call?: StepLlmCall }
  /** Internal: the executor's position, as a run stored by an earlier version had it. Never shown. */
  | { type: 'progress'; stepIndex: number; outputs: Record<string, unknown> };

/**
 * An answer as it is stored: the step it answers and, for an approval, the tool call (the step
 * goes on with the call instead of moving past the step).
 */
export type StoredAnswer = Answer & { stepId: string; stepIndex: number; by?: RunActor; toolCallId?: string };

/** Events a caller sees (the internal ones only move the executor). */
export type VisibleRunEvent = Exclude<RunEvent, { type: 'step' } | { type: 'progress' } | { type: 'round' }>;

export const isVisible = (event: RunEvent): event is VisibleRunEvent => event.type !== 'step' && event.type !== 'progress' && event.type !== 'round';

/** The status after which a stream ends: a pause or an end. */
export const isFinalEvent = (event: RunEvent): boolean => event.type === 'status' && event.final;

/** A status that ends the run for good. */
export const isEndEvent = (event: RunEvent): boolean => event.type === 'status' && event.final && isTerminal(event.status.state);

/** The run's state after `event`, given the state before it. */
export function stateAfter(before: RunState, event: RunEvent): RunState {
  if (event.type === 'status') return event.status.state;
  if (event.type === 'created') return event.status.state;
  return before;
}

export function textOf(message: Pick<RunMessage, 'parts'> | undefined): string {
  return (message?.parts ?? []).flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');
}

export function agentMessage(text: string, extraParts: RunPart[] = []): RunMessage {
  return { id: crypto.randomUUID(), role: 'agent', parts: [...(text ? [{ type: 'text' as const, text }] : []), ...extraParts] };
}
