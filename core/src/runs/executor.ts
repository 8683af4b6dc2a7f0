import { randomUUID } from 'node:crypto';
import { screenValidator, type FlowDefinition } from '../agents/index.ts';
import { DomainError } from '../errors/index.ts';
import type { ExtensionReader, ExtensionView } from '../extensions/index.ts';
import type { LlmProvider } from '../llm/index.ts';
import type { Logger } from '../log/index.ts';
import { textOf, type InterruptPayload, type Message, type ResumePayload, type TaskStatus } from '../a2a/protocol.ts';
import { acceptedAnswers } from '../a2a/hitl-answer.ts';
import { RunEndedError, type EventLog } from './event-log.ts';
import type { RunProgress, RunStore, RunView } from './run-store.ts';
import { renderTemplate } from './template.ts';
import { runOwnerDigest, TERMINAL_STATES, type Models } from '../db/index.ts';
import type { RunLeases } from './leases.ts';
import type { StepRequest } from '../runtime/protocol.ts';

const TEMPLATE_CACHE_MS = 1_000;

export interface RunExecutor {
  /**
   * Runs (or continues) a run in the background; failures end the run with a failed status.
   * `created`: the run as just created, so it need not be read again. Resolves to the run as it
   * completed here, or null when it paused, failed, or another worker holds it.
   */
  start(runId: string, created?: RunView): Promise<RunView | null>;
  /** Validates a HITL answer against the paused screen's schema, then continues the run. */
  /** Continues a paused run with `resume`; `message` (the caller's answer) joins the task's history. */
  resume(runId: string, resume: ResumePayload, message?: Message): Promise<void>;
  cancel(runId: string): Promise<RunView>;
  /** Runs an agent that asks no human to its answer (sub-agent calls, the runtime bridge). */
  callAgent(agent: string, input: string, signal?: AbortSignal): Promise<string>;
  /** Picks up runs whose worker died (lease lapsed) and continues them from their last step. */
  recoverOrphans(): Promise<string[]>;
  /** From now on, LLM and call steps run in the agent runtime process. */
  useRuntime(runtime: StepRuntime): void;
}

/** Where non-HITL steps run when an agent runtime process is attached. */
export interface StepRuntime {
  runStep(request: Omit<StepRequest, 'type' | 'callId'>): Promise<string>;
}


/** Each earlier step's output shown with a pause is cut at this many characters. */
const MAX_CONTEXT_CHARS = 8000;
/**
 * Executes agents' flow definitions. Each step's output is saved before the next step starts,
 * so a run interrupted by a crash continues from its last completed step. Sub-agent calls run
 * the called agent's flow in place through `callAgent`.
 */
export function createRunExecutor(deps: {
  models: Models;
  runs: RunStore;
  eventLog: EventLog;
  extensions: ExtensionReader;
  llm: LlmProvider;
  logger: Logger;
  /** Shared with the run store: runs it creates are leased to this process already. */
  leases: RunLeases;
  /** Runs an agent that is not installed here on a registered peer that offers it; null when none does. */
  remoteAgent?: (agent: string, input: string) => Promise<string | null>;
}): RunExecutor {
  const active = new Map<string, AbortController>();
  let runtime: StepRuntime | undefined;
  const { leases } = deps;

  const status = (state: TaskStatus['state'], text?: string, extra?: Partial<Message>): TaskStatus => ({
    state,
    timestamp: new Date().toISOString(),
    ...(text || extra ? { message: { kind: 'message' as const, messageId: randomUUID(), role: 'agent' as const, parts: text ? [{ kind: 'text' as const, text }] : [], ...extra } as Message } : {}),
  });

  /** What a person answering the pause needs to see: each earlier step's output, as bounded text. */
  function reviewContext(outputs: Record<string, unknown>): Record<string, string> {
    return Object.fromEntries(
      Object.entries(outputs).map(([stepId, value]) => {
        const text = typeof value === 'string' ? value : JSON.stringify(value);
        return [stepId, text.length > MAX_CONTEXT_CHARS ? `${text.slice(0, MAX_CONTEXT_CHARS)}…` : text];
      }),
    );
  }

  async function emitStatus(run: RunView, state: TaskStatus['state'], final: boolean, text?: string, extra?: { message?: Partial<Message>; metadata?: Record<string, unknown>; history?: Message[] }) {
    await deps.eventLog.append(run.id, { kind: 'status-update', taskId: run.id, contextId: run.contextId, status: status(state, text, extra?.message), final, ...(extra?.metadata ? { metadata: extra.metadata } : {}) }, { owner: runOwnerDigest(run.actorType, run.actorId), ...(extra?.history ? { history: extra.history } : {}) });
  }

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

  async function template(agent: string): Promise<ExtensionView> {
    const found = await templateRecord(agent);
    if (!found || found.kind !== 'agent') throw new DomainError('NOT_FOUND', `agent ${agent} is not installed here`);
    return found;
  }

  async function llmTurn(flow: FlowDefinition, prompt: string, signal: AbortSignal): Promise<string> {
    const result = await deps.llm.complete({ messages: [{ role: 'system', content: flow.instructions }, { role: 'user', content: prompt }] }, signal);
    return result.text;
  }

  /** Runs a leaf agent to its answer; sub-agent calls use this (flows with HITL are not callable inline). */
  async function callAgent(agent: string, input: string, signal: AbortSignal, depth: number): Promise<string> {
    if (depth > 8) throw new DomainError('BAD_REQUEST', 'agent calls nest too deep');
    const local = await templateRecord(agent);
    if (!local && deps.remoteAgent) {
      const output = await deps.remoteAgent(agent, input);
      if (output !== null) return output;
    }
    const flow = (await template(agent)).source.flow as FlowDefinition;
    let last = input;
    const outputs: Record<string, unknown> = {};
    for (const step of flow.steps.length ? flow.steps : [{ kind: 'llm' as const, id: 'answer', prompt: '{{input}}' }]) {
      if (step.kind === 'ask') throw new DomainError('UNSUPPORTED_OPERATION', `${agent} asks a human and cannot be called inline`);
      last = step.kind === 'llm'
        ? await llmTurn(flow, renderTemplate(step.prompt, { input, outputs }), signal)
        : await callAgent(step.agent, renderTemplate(step.input, { input, outputs }), signal, depth + 1);
      outputs[step.id] = last;
    }
    return last;
  }

  /** Runs the flow from where the run stands; resolves to the finished run when it completed here. */
  async function execute(runId: string, signal: AbortSignal, known?: RunView): Promise<RunView | undefined> {
    const run = known ?? (await deps.runs.get(runId))!;
    if (TERMINAL_STATES.includes(run.state) || run.state === 'input-required') return;
    const agent = await template(run.agent);
    const flow = agent.source.flow as FlowDefinition;
    const input = textOf(run.input);
    const progress: RunProgress = { stepIndex: run.progress.stepIndex ?? 0, outputs: { ...(run.progress.outputs ?? {}) }, interrupt: null };
    if (run.state === 'submitted') await emitStatus(run, 'working', false);

    const steps = flow.steps.length ? flow.steps : [{ kind: 'llm' as const, id: 'answer', prompt: '{{input}}' }];
    let last: unknown = progress.stepIndex! > 0 ? progress.outputs![steps[progress.stepIndex! - 1]!.id] : input;
    for (let index = progress.stepIndex!; index < steps.length; index++) {
      if (signal.aborted) return;
      const step = steps[index]!;
      const context = { input, outputs: progress.outputs! };
      if (step.kind === 'ask') {
        progress.stepIndex = index;
        progress.interrupt = { stepId: step.id, screenId: step.screen.id, title: step.screen.title, schema: step.screen.schema, context: reviewContext(progress.outputs!) };
        if (!(await deps.runs.saveProgress(run.id, progress))) return;
        const interrupt: InterruptPayload = { type: 'INTERRUPT', runId: run.id, ...progress.interrupt, accepts: [...acceptedAnswers(step.screen.schema)] };
        await emitStatus(run, 'input-required', true, step.screen.title, {
          message: { parts: [{ kind: 'text', text: step.screen.title }, { kind: 'data', data: { interrupt } }] },
          metadata: { interrupt },
        });
        return;
      }
      if (step.kind === 'call') await emitStatus(run, 'working', false, `Calling ${step.agent}`);
      if (runtime) last = await inRuntime(runtime, { flow: { instructions: flow.instructions }, step, context });
      else if (step.kind === 'call') last = await callAgent(step.agent, renderTemplate(step.input, context), signal, 1);
      else last = await llmTurn(flow, renderTemplate(step.prompt, context), signal);
      progress.outputs![step.id] = last;
      progress.stepIndex = index + 1;
      // The last step's progress is stored with the answer below, in the same update. Between
      // steps, a run that ended meanwhile (canceled in another process) stops here.
      if (index + 1 < steps.length && !(await deps.runs.saveProgress(run.id, progress))) return;
    }
    if (signal.aborted) return;
    const text = typeof last === 'string' ? last : JSON.stringify(last);
    // The answer and the completion are stored together (one insert, one run update).
    const answer = { kind: 'artifact-update' as const, taskId: run.id, contextId: run.contextId, artifact: { artifactId: randomUUID(), name: 'answer', parts: [{ kind: 'text' as const, text }] }, lastChunk: true };
    const completed = { kind: 'status-update' as const, taskId: run.id, contextId: run.contextId, status: status('completed', text), final: true };
    const lastSeq = await deps.eventLog.appendAll(run.id, [answer, completed], { progress: progress as Record<string, unknown>, owner: runOwnerDigest(run.actorType, run.actorId) });
    return { ...run, state: 'completed', status: completed.status, artifacts: [...(run.artifacts ?? []), answer.artifact], history: [...run.history, ...(completed.status.message ? [completed.status.message] : [])], progress, lastSeq };
  }

  /** A step whose runtime crashed under it is run again once the runtime is back (twice at most). */
  async function inRuntime(target: StepRuntime, request: Omit<StepRequest, 'type' | 'callId'>): Promise<string> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await target.runStep(request);
      } catch (error) {
        if (attempt >= 2 || (error as Error).name !== 'RuntimeCrashedError') throw error;
        deps.logger.warn('agent runtime crashed during a step; running it again', { step: request.step.id, attempt });
      }
    }
  }

  function launch(runId: string, recovered = false, known?: RunView): Promise<RunView | null> {
    if (active.has(runId)) return Promise.resolve(null);
    const controller = new AbortController();
    active.set(runId, controller);
    let release: (() => Promise<void>) | null = null;
    return leases
      // Another worker took over (this one stalled past its lease): stop here; it continues the run.
      .hold(runId, () => controller.abort(), { owned: known !== undefined && !recovered })
      .then(async (held) => {
        release = held;
        if (!held) return null;
        if (recovered) {
          const run = await deps.runs.get(runId);
          // 'submitted' too: a follower may have seen the 'working' event whose run update the crash cut off.
          if (run && (run.state === 'working' || run.state === 'submitted')) await emitStatus(run, 'working', false, 'Resumed after the host restarted');
        }
        return (await execute(runId, controller.signal, known)) ?? null;
      })
      .catch(async (error: unknown) => {
        const message = error instanceof DomainError ? error.message : 'The agent failed';
        if (!(error instanceof DomainError)) deps.logger.error('run failed', { error, runId });
        const run = await deps.runs.get(runId);
        if (run && !TERMINAL_STATES.includes(run.state)) await emitStatus(run, 'failed', true, message);
        return null;
      })
      .catch((error: unknown) => {
        deps.logger.error('could not record a run failure', { error, runId });
        return null;
      })
      .finally(() => {
        active.delete(runId);
        void release?.();
      });
  }

  async function recoverOrphans(): Promise<string[]> {
    // Runs bridged from a remote peer are the remote bridge's to recover.
    const stale = (await leases.orphans({ remote: false })).filter((id) => !active.has(id));
    for (const id of stale) void launch(id, true);
    return stale;
  }

  return {
    start: (runId, created) => launch(runId, false, created),
    useRuntime: (target) => {
      runtime = target;
    },
    recoverOrphans,
    callAgent: (agent, input, signal) => callAgent(agent, input, signal ?? new AbortController().signal, 1),

    async resume(runId, resume, message) {
      const run = await deps.runs.get(runId);
      if (!run) throw new DomainError('NOT_FOUND', 'Task not found');
      const interrupt = run.progress.interrupt;
      if (run.state !== 'input-required' || !interrupt) throw new DomainError('CONFLICT', 'The task is not waiting for input');
      if (resume.screenId !== interrupt.screenId) {
        throw new DomainError('VALIDATION_FAILED', `The task is waiting for screen "${interrupt.screenId}", not "${resume.screenId}"`);
      }
      const validate = screenValidator(interrupt.schema);
      if (!validate(resume.values)) {
        throw new DomainError('VALIDATION_FAILED', 'The answer does not match the screen\'s schema', {
          details: (validate.errors ?? []).map((e) => ({ path: `values${e.instancePath.replace(/\//g, '.')}`, reason: e.message ?? 'invalid' })),
        });
      }
      const outputs = { ...(run.progress.outputs ?? {}), [interrupt.stepId]: resume.values };
      await deps.runs.saveProgress(run.id, { stepIndex: (run.progress.stepIndex ?? 0) + 1, outputs, interrupt: null });
      await emitStatus(run, 'working', false, 'Resumed', message ? { history: [message] } : undefined);
      void launch(run.id);
    },

    async cancel(runId) {
      const run = await deps.runs.get(runId);
      if (!run) throw new DomainError('NOT_FOUND', 'Task not found');
      if (TERMINAL_STATES.includes(run.state)) throw new DomainError('TASK_NOT_CANCELABLE', `The task is already ${run.state}`);
      active.get(runId)?.abort();
      try {
        // Decided once with every other ending (ADR 0008's insert-once rule): if the run finished
        // in another process first, that ending stands.
        await emitStatus(run, 'canceled', true, 'Canceled');
      } catch (error) {
        if (!(error instanceof RunEndedError)) throw error;
        const ended = await deps.runs.get(runId);
        throw new DomainError('TASK_NOT_CANCELABLE', `The task is already ${ended?.state ?? 'finished'}`);
      }
      return (await deps.runs.get(runId))!;
    },
  };
}
