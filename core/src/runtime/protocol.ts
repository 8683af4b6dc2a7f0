import type { FlowDefinition, FlowStep } from '../agents/index.ts';
import type { LlmToolDefinition } from '../llm/index.ts';

/** One step the host asks the runtime to run: an LLM turn or a sub-agent call (never an ask). */
export interface StepRequest {
  type: 'step';
  callId: string;
  flow: Pick<FlowDefinition, 'instructions'>;
  step: Exclude<FlowStep, { kind: 'ask' } | { kind: 'reply' }>;
  context: { input: string; outputs: Record<string, unknown> };
  /** The step's key: a sub-agent call sends it to the host, which hands it on (a peer's Idempotency-Key). */
  stepKey: string;
  /** The step's trace context, when tracing is on: the runtime sends it back on its host calls. */
  traceparent?: string;
  /** An LLM step with tools: the runtime runs its tool loop; each round and each call is a host call naming `handle`. */
  tools?: { definitions: LlmToolDefinition[]; maxToolRounds: number; respond?: string; handle: string };
}

/**
 * `calls`: the LLM calls the step made (its sub-agents' included), as the host's answers to its
 * host calls described them; a runtime of an earlier version sends none. `remote`: the peer task
 * that answered a call step, as the host's answer named it.
 */
export type StepReply = { type: 'result'; callId: string; output: unknown; calls?: ReportedLlmCall[]; remote?: unknown } | { type: 'error'; callId: string; message: string };

/** One LLM call as the runtime reports it back (the host keeps it to this shape and prices it). */
export interface ReportedLlmCall {
  provider: string;
  model: string;
  inputTokens: number;
  outputTokens: number;
  durationMs: number;
}

export interface RuntimeReady {
  type: 'ready';
}

/**
 * The runtime asks its host for an LLM turn or a sub-agent run: the body is the JSON the bridge
 * routes take (`{ messages }`, `{ input }`), answered by a HostAnswer with the same `callId`.
 */
export interface HostCall {
  type: 'host-call';
  callId: string;
  target: { kind: 'llm' } | { kind: 'agent'; vendor: string; slug: string } | { kind: 'round'; handle: string } | { kind: 'tool'; handle: string };
  body: string;
  /** The step's trace context it came with, so the host's LLM or agent call joins the step's trace. */
  traceparent?: string;
}

export type HostAnswer = { type: 'host-answer'; callId: string; value: unknown } | { type: 'host-answer'; callId: string; error: string };

/**
 * What the host answers the runtime's calls with (bridge/handlers.ts `createBridgeCalls`): an LLM
 * turn's result (its `provider`, `model` and `usage` included), an agent's `{ output, calls }`.
 */
export interface HostCalls {
  llm(body: string, signal?: AbortSignal): Promise<unknown>;
  agent(vendor: string, slug: string, body: string, signal?: AbortSignal): Promise<unknown>;
  /** A tool step's round (`{ round, turn }`) → `{ text, toolCalls }`, from the step's host (stored, or asked and stored). */
  round(handle: string, body: string): Promise<unknown>;
  /** A tool step's call (`{ round, index, call }`) → its outcome, from the step's host (stored, or approved, made and stored). */
  tool(handle: string, body: string): Promise<unknown>;
}
