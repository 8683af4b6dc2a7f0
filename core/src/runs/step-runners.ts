import { createHash } from 'node:crypto';
import type { FlowDefinition, FlowStep } from '../agents/index.ts';
import { DomainError } from '../errors/index.ts';
import type { ExtensionReader, ExtensionView } from '../extensions/index.ts';
import type { LlmProvider } from '../llm/index.ts';
import type { Logger } from '../log/index.ts';
import { currentTraceparent } from '../telemetry/index.ts';
import { conditionHolds, renderTemplate } from '../step-template/index.ts';
import type { RemoteStepTask, StepLlmCall } from './model.ts';
import { reportedCalls, reportedRemoteTask } from './usage-sum.ts';

const TEMPLATE_CACHE_MS = 1_000;

/** One step for the agent runtime process: an LLM turn or a sub-agent call (never an ask). */
export interface RuntimeStep {
  flow: Pick<FlowDefinition, 'instructions'>;
  step: Exclude<FlowStep, { kind: 'ask' } | { kind: 'reply' }>;
  context: { input: string; outputs: Record<string, unknown> };
  /** Names this step of this run: a sub-agent call carries it, so a retried call is recognised (see `callAgent`). */
  stepKey: string;
  /** The step span's trace context (W3C), handed back on the runtime's host calls: they are part of the step's trace. */
  traceparent?: string;
}

/** What the runtime answers a step with: its output and the LLM calls it made (absent from runtimes that report none). */
export interface RuntimeStepOutcome {
  output: string;
  calls?: unknown;
  /** The peer task that answered a call step (another process's report: its shape is checked). */
  remote?: unknown;
}

/** Where non-HITL steps run when an agent runtime process is attached. */
export interface StepRuntime {
  runStep(request: RuntimeStep): Promise<string | RuntimeStepOutcome>;
}

/** A peer's answer to a sub-agent call, with the task on the peer that gave it. */
export interface RemoteAnswer {
  output: string;
  remote?: RemoteStepTask;
}

/** A sub-agent call to a peer: `idempotencyKey` is the same for every try of one step. */
export type RemoteAgentCall = (agent: string, input: string, options: { idempotencyKey: string }) => Promise<string | RemoteAnswer | null>;

/** What one step gathers while it runs: every LLM call (a sub-agent's included) and the peer task that answered it. */
export interface StepRecorder {
  calls: StepLlmCall[];
  remote?: RemoteStepTask;
}

/** A step's key: the same for every try of this step of this run, and nothing else. */
export const stepKeyOf = (runId: string, index: number, stepId: string) => createHash('sha256').update(`${runId}/${index}/${stepId}`).digest('hex').slice(0, 32);

/** The tries of one step: more than one when the agent runtime crashed under it. */
export interface StepAttempts {
  count: number;
}

/**
 * How the steps that do work run (an LLM turn, a sub-agent call), in this process or in the
 * agent runtime process once one is attached, and the flows they belong to. The executor decides
 * which step runs and stores what it did; this decides how it runs and records its LLM calls.
 */
export function createStepRunners(deps: { extensions: ExtensionReader; llm: LlmProvider; logger: Logger; remoteAgent?: RemoteAgentCall }) {
  let runtime: StepRuntime | undefined;

  // Template records change only on install or publish; reading each at most once a second keeps
  // the (large) record off every run's path. A new version is used within a second.
  const templates = new Map<string, { at: number; value: Promise<ExtensionView | null> }>();
  function templateRecord(agent: string): Promise<ExtensionView | null> {
    const cached = templates.get(agent);
    if (cached && Date.now() - cached.at < TEMPLATE_CACHE_MS) return cached.value;
    const value = deps.extensions.getByPackageName(agent);
    templates.set(agent, { at: Date.now(), value });
    value.catch(() => templates.delete(agent));
    return value;
  }

  async function flowOf(agent: string): Promise<FlowDefinition> {
    const found = await templateRecord(agent);
    if (!found || found.kind !== 'agent') throw new DomainError('NOT_FOUND', `agent ${agent} is not installed here`);
    return found.source.flow as FlowDefinition;
  }

  const stepsOf = (flow: FlowDefinition): FlowStep[] => (flow.steps.length ? flow.steps : [{ kind: 'llm', id: 'answer', prompt: '{{input}}' }]);

  async function llmTurn(flow: FlowDefinition, prompt: string, signal: AbortSignal, recorder: StepRecorder): Promise<string> {
    const started = performance.now();
    const result = await deps.llm.complete({ messages: [{ role: 'system', content: flow.instructions }, { role: 'user', content: prompt }] }, signal);
    recorder.calls.push({ provider: result.provider, model: result.model, inputTokens: result.usage?.inputTokens ?? 0, outputTokens: result.usage?.outputTokens ?? 0, durationMs: Math.round(performance.now() - started) });
    return result.text;
  }

  /**
   * Runs a leaf agent to its answer (flows with a pause are not callable inline). A call to a
   * peer carries `stepKey` as its idempotency key: a step run again after a crash sends the same
   * key, and the peer answers with the task the first try started instead of starting another.
   * LLM turns are not keyed: they write nothing outside the service. Every LLM call, nested ones
   * included, goes to `recorder`; so does the peer task of a direct call to a peer (`depth` 1).
   */
  async function callAgent(agent: string, input: string, signal: AbortSignal, depth: number, stepKey: string, recorder: StepRecorder): Promise<string> {
    if (depth > 8) throw new DomainError('BAD_REQUEST', 'agent calls nest too deep');
    const local = await templateRecord(agent);
    if (!local && deps.remoteAgent) {
      const answer = await deps.remoteAgent(agent, input, { idempotencyKey: stepKey });
      if (typeof answer === 'string') return answer;
      if (answer !== null) {
        if (answer.remote && depth === 1) recorder.remote = answer.remote;
        return answer.output;
      }
    }
    const flow = await flowOf(agent);
    let last = input;
    const outputs: Record<string, unknown> = {};
    for (const step of stepsOf(flow)) {
      if (!conditionHolds(step.when, outputs)) continue;
      if (step.kind === 'ask') throw new DomainError('UNSUPPORTED_OPERATION', `${agent} asks a human and cannot be called inline`);
      if (step.kind === 'reply') return renderTemplate(step.text, { input, outputs });
      last = step.kind === 'llm'
        ? await llmTurn(flow, renderTemplate(step.prompt, { input, outputs }), signal, recorder)
        : await callAgent(step.agent, renderTemplate(step.input, { input, outputs }), signal, depth + 1, `${stepKey}/${step.id}`, recorder);
      outputs[step.id] = last;
    }
    return last;
  }

  /** The step's trace context for the runtime process, which hands it back on the host calls it makes. */
  const withTraceparent = (): { traceparent?: string } => {
    const traceparent = currentTraceparent();
    return traceparent ? { traceparent } : {};
  };

  /**
   * A step whose runtime crashed under it is run again once the runtime is back (twice at most).
   * The runtime's reported calls are kept to a step event's shape (it is another process) and
   * priced here; `attempts` counts the tries.
   */
  async function inRuntime(target: StepRuntime, request: RuntimeStep, recorder: StepRecorder, attempts: StepAttempts): Promise<string> {
    for (let attempt = 0; ; attempt++) {
      attempts.count = attempt + 1;
      try {
        const outcome = await target.runStep(request);
        if (typeof outcome === 'string') return outcome;
        recorder.calls.push(...reportedCalls(outcome.calls));
        const remote = reportedRemoteTask(outcome.remote);
        if (remote) recorder.remote = remote;
        return outcome.output;
      } catch (error) {
        if (attempt >= 2 || (error as Error).name !== 'RuntimeCrashedError') throw error;
        deps.logger.warn('agent runtime crashed during a step; running it again', { step: request.step.id, attempt });
      }
    }
  }

  /** Runs an LLM or call step of `flow` to its output: in the agent runtime process when one is attached, else here. */
  function run(flow: FlowDefinition, step: RuntimeStep['step'], context: RuntimeStep['context'], stepKey: string, signal: AbortSignal, recorder: StepRecorder, attempts: StepAttempts): Promise<string> {
    if (runtime) return inRuntime(runtime, { flow: { instructions: flow.instructions }, step, context, stepKey, ...withTraceparent() }, recorder, attempts);
    if (step.kind === 'call') return callAgent(step.agent, renderTemplate(step.input, context), signal, 1, stepKey, recorder);
    return llmTurn(flow, renderTemplate(step.prompt, context), signal, recorder);
  }

  return {
    flowOf,
    stepsOf,
    run,
    /** Runs an agent that asks no human to its answer (a sub-agent call from outside a flow: the runtime bridge). */
    callAgent: (agent: string, input: string, signal: AbortSignal, stepKey: string, recorder: StepRecorder) => callAgent(agent, input, signal, 1, stepKey, recorder),
    useRuntime(target: StepRuntime) {
      runtime = target;
    },
  };
}

export type StepRunners = ReturnType<typeof createStepRunners>;
