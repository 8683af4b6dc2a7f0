import type { FlowDefinition, FlowStep } from '../agents/index.ts';

/** One step the host asks the runtime to run: an LLM turn or a sub-agent call (never an ask). */
export interface StepRequest {
  type: 'step';
  callId: string;
  flow: Pick<FlowDefinition, 'instructions'>;
  step: Exclude<FlowStep, { kind: 'ask' }>;
  context: { input: string; outputs: Record<string, unknown> };
  /** The step's trace context, when tracing is on: the runtime sends it back on its host calls. */
  traceparent?: string;
}

export type StepReply = { type: 'result'; callId: string; output: string } | { type: 'error'; callId: string; message: string };

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
  target: { kind: 'llm' } | { kind: 'agent'; vendor: string; slug: string };
  body: string;
  /** The step's trace context it came with, so the host's LLM or agent call joins the step's trace. */
  traceparent?: string;
}

export type HostAnswer = { type: 'host-answer'; callId: string; value: unknown } | { type: 'host-answer'; callId: string; error: string };

/** What the host answers the runtime's calls with (bridge/handlers.ts `createBridgeCalls`). */
export interface HostCalls {
  llm(body: string, signal?: AbortSignal): Promise<unknown>;
  agent(vendor: string, slug: string, body: string, signal?: AbortSignal): Promise<unknown>;
}
