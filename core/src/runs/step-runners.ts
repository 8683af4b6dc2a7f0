import { createHash, randomUUID } from 'node:crypto';
import { flowDefinitionSchema, RESPOND_TOOL, stepTools, type FlowDefinition, type FlowStep, type LlmStep } from '../agents/index.ts';
import { DomainError } from '../errors/index.ts';
import type { ExtensionReader, ExtensionView } from '../extensions/index.ts';
import type { LlmProvider, LlmToolDefinition } from '../llm/index.ts';
import { runToolLoop, type ToolLoopHost } from '../tool-loop/index.ts';
import type { Logger } from '../log/index.ts';
import { currentTraceparent } from '../telemetry/index.ts';
import { conditionHolds, renderTemplate } from '../step-template/index.ts';
import type { RemoteStepTask, StepLlmCall, StepRecorder } from './model.ts';
export type { StepRecorder } from './model.ts';
import type { PendingToolStep } from './run-view.ts';
import { createToolStepHost, respondDefinition, toolDefinitionOf, type ToolStepInput } from './tool-step.ts';
import type { Toolbox } from './toolbox.ts';
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
  /** An LLM step with tools: the runtime runs its tool loop, asking the host (`handle`) for each round and each call. */
  tools?: RuntimeToolLoop;
}

/** What the runtime needs to run an LLM step's tool loop; its rounds and calls are the host's (tool-step.ts). */
export interface RuntimeToolLoop {
  definitions: LlmToolDefinition[];
  maxToolRounds: number;
  respond?: string;
  /** Names the step's host for the runtime's round and tool calls. */
  handle: string;
}

/** What the runtime answers a step with: its output and the LLM calls it made (absent from runtimes that report none). */
export interface RuntimeStepOutcome {
  /** Text, or a structured step's value; none when the step paused for an approval. */
  output: unknown;
  calls?: unknown;
  /** The peer task that answered a call step (another process's report: its shape is checked). */
  remote?: unknown;
}

/** Where non-HITL steps run when an agent runtime process is attached. */
export interface StepRuntime {
  runStep(request: RuntimeStep): Promise<string | RuntimeStepOutcome>;
}

/** An LLM step with tools, as the executor sets it up: its host (which stores and replays) and its loop's bounds. */
export interface ToolStepSetup {
  host: ToolLoopHost;
  definitions: LlmToolDefinition[];
  maxToolRounds: number;
  respond?: string;
}

/** A peer's answer to a sub-agent call, with the task on the peer that gave it. */
export interface RemoteAnswer {
  output: string;
  remote?: RemoteStepTask;
}

/** A sub-agent call to a peer: `idempotencyKey` is the same for every try of one step. */
export type RemoteAgentCall = (agent: string, input: string, options: { idempotencyKey: string }) => Promise<string | RemoteAnswer | null>;


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
export function createStepRunners(deps: { extensions: ExtensionReader; llm: LlmProvider; logger: Logger; remoteAgent?: RemoteAgentCall; toolbox?: Toolbox; price?: (calls: StepLlmCall[]) => Promise<StepLlmCall[]> }) {
  let runtime: StepRuntime | undefined;
  /** The hosts of tool steps running in the runtime process, by the handle its calls name them with. */
  const toolHosts = new Map<string, ToolLoopHost>();

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

  /** The flow of an installed agent (or, called as a tool, of a skill package). */
  async function flowOf(agent: string, kinds: readonly string[] = ['agent']): Promise<FlowDefinition> {
    const found = await templateRecord(agent);
    if (!found || !kinds.includes(found.kind)) throw new DomainError('NOT_FOUND', `agent ${agent} is not installed here`);
    // Parsed once per record read (the schema's defaults fill fields that records stored by earlier versions lack).
    let flow = parsedFlows.get(found.source);
    if (!flow) parsedFlows.set(found.source, (flow = flowDefinitionSchema.parse(found.source.flow)));
    return flow;
  }

  const parsedFlows = new WeakMap<object, FlowDefinition>();
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
  async function callAgent(agent: string, input: string, signal: AbortSignal, depth: number, stepKey: string, recorder: StepRecorder, direct = depth === 1): Promise<string> {
    if (depth > 8) throw new DomainError('BAD_REQUEST', 'agent calls nest too deep');
    const local = await templateRecord(agent);
    if (!local && deps.remoteAgent) {
      const answer = await deps.remoteAgent(agent, input, { idempotencyKey: stepKey });
      if (typeof answer === 'string') return answer;
      if (answer !== null) {
        if (answer.remote && direct) recorder.remote = answer.remote;
        return answer.output;
      }
    }
    const flow = await flowOf(agent, ['agent', 'skill']);
    let last: unknown = input;
    const outputs: Record<string, unknown> = {};
    for (const [index, step] of stepsOf(flow).entries()) {
      if (!conditionHolds(step.when, outputs)) continue;
      if (step.kind === 'ask') throw new DomainError('UNSUPPORTED_OPERATION', `${agent} asks a human and cannot be called inline`);
      if (step.kind === 'reply') return renderTemplate(step.text, { input, outputs });
      const context = { input, outputs };
      const key = `${stepKey}/${step.id}`;
      if (step.kind === 'call') last = await callAgent(step.agent, renderTemplate(step.input, context), signal, depth + 1, key, recorder, false);
      else {
        // Inline, a tool step's rounds and results are this call's alone (they are made again if the calling step is).
        const tools = await toolStepOf(agent, flow, step, { index, stepKey: key, pending: undefined, signal, recorder, store: async (_events, calls) => void recorder.calls.push(...calls) }, depth, false);
        if (!tools) last = await llmTurn(flow, renderTemplate(step.prompt, context), signal, recorder);
        else {
          const result = await runToolLoop(loopOf(flow, step, context, tools.setup), tools.host);
          const waiting = tools.host.paused();
          if (result.kind === 'paused' || waiting) throw new DomainError('UNSUPPORTED_OPERATION', `${agent} asks for approval before ${waiting?.tool?.tool ?? 'a tool call'} and cannot be called inline`);
          last = result.output;
        }
      }
      outputs[step.id] = last;
    }
    return typeof last === 'string' ? last : JSON.stringify(last);
  }

  const loopOf = (flow: FlowDefinition, step: LlmStep, context: RuntimeStep['context'], setup: ToolStepSetup) => ({
    instructions: flow.instructions,
    prompt: renderTemplate(step.prompt, context),
    tools: setup.definitions,
    maxToolRounds: setup.maxToolRounds,
    ...(setup.respond ? { respond: setup.respond } : {}),
  });

  /**
   * The tool loop of an LLM step, set up: its tools resolved and its host (which stores rounds and
   * calls with `store` and replays `pending`). Undefined for a step with neither tools nor an
   * output schema, which is one LLM turn as before.
   */
  async function toolStepOf(
    agent: string,
    flow: FlowDefinition,
    step: LlmStep,
    options: { index: number; stepKey: string; pending: PendingToolStep | undefined; signal: AbortSignal; recorder: StepRecorder; store: ToolStepInput['store'] },
    depth = 1,
    priced = true,
  ): Promise<{ host: ReturnType<typeof createToolStepHost>; setup: ToolStepSetup } | undefined> {
    const granted = stepTools(flow, step);
    if (granted.length === 0 && step.output === undefined) return undefined;
    if (granted.length > 0 && !deps.toolbox) throw new DomainError('UNSUPPORTED_OPERATION', `${agent} uses tools, which this host does not offer`);
    const tools = granted.length > 0 ? await deps.toolbox!.resolve(agent, granted) : [];
    const respond = step.output ? { name: RESPOND_TOOL, schema: step.output } : undefined;
    const host = createToolStepHost({
      index: options.index,
      stepId: step.id,
      stepKey: options.stepKey,
      pending: options.pending,
      tools,
      ...(respond ? { respond } : {}),
      llm: deps.llm,
      signal: options.signal,
      recorder: options.recorder,
      callAgent: (target, text, call) => callAgent(target, text, call.signal, depth + 1, call.key, call.recorder, true),
      store: options.store,
      price: priced && deps.price ? deps.price : async (calls) => calls,
      logger: deps.logger,
    });
    const definitions = [...tools.map(toolDefinitionOf), ...(respond ? [respondDefinition(respond)] : [])];
    return { host, setup: { host, definitions, maxToolRounds: flow.maxToolRounds, ...(respond ? { respond: respond.name } : {}) } };
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
  async function inRuntime(target: StepRuntime, request: RuntimeStep, recorder: StepRecorder, attempts: StepAttempts): Promise<unknown> {
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

  /**
   * Runs an LLM or call step of `flow` to its output: in the agent runtime process when one is
   * attached, else here. An LLM step with tools runs its tool loop against `tools.host` (from the
   * runtime, through host calls naming it); it resolves to nothing when the loop paused.
   */
  async function run(flow: FlowDefinition, step: RuntimeStep['step'], context: RuntimeStep['context'], stepKey: string, signal: AbortSignal, recorder: StepRecorder, attempts: StepAttempts, tools?: ToolStepSetup): Promise<unknown> {
    if (runtime) {
      if (!tools) return inRuntime(runtime, { flow: { instructions: flow.instructions }, step, context, stepKey, ...withTraceparent() }, recorder, attempts);
      const handle = randomUUID();
      toolHosts.set(handle, tools.host);
      try {
        const loop: RuntimeToolLoop = { definitions: tools.definitions, maxToolRounds: tools.maxToolRounds, handle, ...(tools.respond ? { respond: tools.respond } : {}) };
        return await inRuntime(runtime, { flow: { instructions: flow.instructions }, step, context, stepKey, tools: loop, ...withTraceparent() }, recorder, attempts);
      } finally {
        toolHosts.delete(handle);
      }
    }
    if (step.kind === 'call') return callAgent(step.agent, renderTemplate(step.input, context), signal, 1, stepKey, recorder);
    if (!tools) return llmTurn(flow, renderTemplate(step.prompt, context), signal, recorder);
    const result = await runToolLoop(loopOf(flow, step, context, tools), tools.host);
    return result.kind === 'answer' ? result.output : undefined;
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
    toolStepOf,
    /** The host of a tool step running in the runtime process, by its handle; null once the step ended. */
    toolHost: (handle: string): ToolLoopHost | null => toolHosts.get(handle) ?? null,
  };
}

export type StepRunners = ReturnType<typeof createStepRunners>;
