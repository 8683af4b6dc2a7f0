import type { FlowDefinition, FlowStep } from '../agents/index.ts';

/** One step the host asks the runtime to run: an LLM turn or a sub-agent call (never an ask). */
export interface StepRequest {
  type: 'step';
  callId: string;
  flow: Pick<FlowDefinition, 'instructions'>;
  step: Exclude<FlowStep, { kind: 'ask' }>;
  context: { input: string; outputs: Record<string, unknown> };
}

export type StepReply = { type: 'result'; callId: string; output: string } | { type: 'error'; callId: string; message: string };

export interface RuntimeReady {
  type: 'ready';
}

/** Environment the host gives the runtime (never argv: the bridge token is a secret). */
export const RUNTIME_ENV = {
  hostUrl: 'SERVICE_RUNTIME_HOST_URL',
  bridgeToken: 'SERVICE_BRIDGE_TOKEN',
} as const;
