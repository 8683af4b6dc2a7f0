import { activeContext, contextFromTraceparent, inSpan } from '../telemetry/index.ts';
import { screenValidator, type FlowStep } from '../agents/index.ts';
import { DomainError, isDatabaseUnreachable } from '../errors/index.ts';
import type { ExtensionReader } from '../extensions/index.ts';
import type { LlmProvider } from '../llm/index.ts';
import type { Logger } from '../log/index.ts';
import { LeaseLostError, RunEndedError, type EventLog, type Tail } from './event-log.ts';
import type { HeldLease, Orphan, RunLeases } from './leases.ts';
import { ACTIVE_STATES, agentMessage, isTerminal, textOf, type Answer, type Interrupt, type RunEvent, type RunActor, type RunMessage, type RunStatus, type RunUsage, type StepLlmCall } from './model.ts';
import type { RunStore } from './run-store.ts';
import type { RunProgress, RunView } from './run-view.ts';
import { conditionHolds, renderTemplate } from '../step-template/index.ts';
import { createStepRunners, stepKeyOf, type RemoteAgentCall, type StepRecorder, type StepRuntime } from './step-runners.ts';
import type { Toolbox } from './toolbox.ts';
import type { ToolLoopHost } from '../tool-loop/index.ts';
import { addCalls } from './usage-sum.ts';

/** Each earlier step's output shown with a pause is cut at this many characters. */
const MAX_CONTEXT_CHARS = 8000;

export interface RunExecutor {
  /**
   * Runs a run this process just created (it holds generation 0 of its lease) in the
   * background; failures end the run with a failed status. Resolves to the run as it completed
   * here, or null when it paused, failed, or another worker holds it.
   */
  start(runId: string, created?: RunView): Promise<RunView | null>;
  /**
   * Answers a paused run and continues it. The answer is stored only if the run still waits for
   * it: of several answers, exactly one is taken; the others are refused with CONFLICT naming
   * the run's state. Resolves to the sequence number of the stored answer.
   */
  resume(runId: string, answer: Answer, message?: RunMessage, by?: RunActor): Promise<number>;
  cancel(runId: string): Promise<RunView>;
  /** Runs an agent that asks no human to its answer (sub-agent calls, the runtime bridge); its LLM calls go to `recorder`. */
  callAgent(agent: string, input: string, signal?: AbortSignal, stepKey?: string, recorder?: StepRecorder): Promise<string>;
  /** Takes over runs whose worker died (lease lapsed) and continues them from their last stored step. */
  recoverOrphans(): Promise<string[]>;
  /** From now on, LLM and call steps run in the agent runtime process. */
  useRuntime(runtime: StepRuntime): void;
  /** The host of a tool step running in the runtime process, by the handle its step request named; null once the step ended. */
  toolHost(handle: string): ToolLoopHost | null;
}

/** The run's position with an approval given to one of its step's tool calls. */
function withApproval(progress: RunProgress, toolCallId: string, values: Record<string, unknown>, by: RunActor | undefined): RunProgress {
  const pending = progress.pending?.index === progress.stepIndex ? structuredClone(progress.pending) : { index: progress.stepIndex, rounds: [], started: {}, results: {}, approvals: {} };
  pending.approvals[toolCallId] = { values, ...(by ? { by } : {}) };
  return { ...progress, pending };
}

/** A run's stored answer refused: the run is not (or no longer) waiting for it. */
function notWaiting(tail: Tail): DomainError {
  return new DomainError('CONFLICT', isTerminal(tail.state) ? `The task is ${tail.state}: it takes no more answers` : `The task is ${tail.state}, not waiting for input: it took another answer`);
}

/** What the failure path records: the run's usage as its execution knows it, and the step that failed. */
type Spent = { usage?: RunUsage; failedStep?: RunEvent };

/**
 * Executes agents' flows on the event log. Every step's output is an event stored before the
 * next step starts, so a run whose worker died continues after its last stored step; every
 * append carries the worker's lease generation, so a worker that lost its run stops at its next
 * write instead of writing beside its successor.
 */
export function createRunExecutor(deps: {
  runs: RunStore;
  eventLog: EventLog;
  extensions: ExtensionReader;
  llm: LlmProvider;
  logger: Logger;
  leases: RunLeases;
  /** Runs an agent that is not installed here on a registered peer that offers it; null when none does. */
  remoteAgent?: RemoteAgentCall;
  /** Prices LLM calls as they are recorded (the operator's price table); calls stay unpriced without it. */
  price?: (calls: StepLlmCall[]) => Promise<StepLlmCall[]>;
  /** Resolves the tools LLM steps name (agents, connector primitives, MCP tools); without it, a step with tools fails saying so. */
  toolbox?: Toolbox;
}): RunExecutor {
  const active = new Map<string, AbortController>();
  const runners = createStepRunners(deps);
  const { leases, eventLog } = deps;

  const status = (state: RunStatus['state'], text?: string, message?: RunMessage): RunStatus => ({
    state,
    timestamp: new Date().toISOString(),
    ...(message ? { message } : text ? { message: agentMessage(text) } : {}),
  });

  function reviewContext(outputs: Record<string, unknown>): Record<string, string> {
    return Object.fromEntries(
      Object.entries(outputs).map(([stepId, value]) => {
        const text = typeof value === 'string' ? value : JSON.stringify(value);
        return [stepId, text.length > MAX_CONTEXT_CHARS ? `${text.slice(0, MAX_CONTEXT_CHARS)}…` : text];
      }),
    );
  }


  /** Runs the flow from where the run stands, writing under `generation`; resolves to the finished run when it completed here. */
  async function execute(run: RunView, generation: number, lease: HeldLease, signal: AbortSignal, spent: Spent): Promise<RunView | null> {
    let tail = run.tail;
    /** The run's usage so far (its earlier steps', as folded from its log), carried to the head with each step stored. */
    let usage = run.usage;
    spent.usage = usage;
    let finalStep: RunEvent | undefined;
    const append = async (events: RunEvent[], known = usage) => (tail = await eventLog.appendAll(run.id, events, { fence: generation, ...(known ? { usage: known } : {}) }));
    const flow = await runners.flowOf(run.agent);
    const input = textOf(run.input);
    const outputs = { ...run.progress.outputs };
    if (run.state === 'submitted') await append([{ type: 'status', status: status('working'), final: false }]);
    const steps = runners.stepsOf(flow);
    // The answer so far: the output of the last step that ran (skipped steps have none), else the input.
    const ran = steps.slice(0, run.progress.stepIndex).findLast((step) => Object.hasOwn(outputs, step.id));
    let last: unknown = ran ? outputs[ran.id] : input;
    for (let index = run.progress.stepIndex; index < steps.length; index++) {
      if (signal.aborted) return null;
      const step = steps[index]!;
      const context = { input, outputs };
      // A step whose `when` does not hold is recorded as skipped (null output, none in `outputs`), so
      // a run continued after a crash moves past it as past any stored step.
      const skipped = !conditionHolds(step.when, outputs);
      if (skipped || step.kind === 'reply') {
        if (!skipped) last = renderTemplate((step as Extract<FlowStep, { kind: 'reply' }>).text, context);
        const record: RunEvent = { type: 'step', index, stepId: step.id, output: skipped ? null : last, kind: step.kind, ...(skipped ? { skipped: true } : { startedAt: new Date().toISOString(), durationMs: 0, attempts: 1, calls: [] }) };
        if (!skipped) outputs[step.id] = last;
        // A reply ends the flow: its record goes out with the answer, as the last step's does.
        if (!skipped || index + 1 === steps.length) {
          finalStep = record;
          break;
        }
        await append([record], usage);
        continue;
      }
      if (step.kind === 'ask') {
        const interrupt: Interrupt = { stepId: step.id, screenId: step.screen.id, title: step.screen.title, schema: step.screen.schema, context: reviewContext(outputs) };
        await append([{ type: 'status', status: status('input-required', step.screen.title), final: true, interrupt }]);
        await lease.pause();
        return null;
      }
      if (step.kind === 'call') await append([{ type: 'status', status: status('working', `Calling ${step.agent}`), final: false }]);
      const stepKey = stepKeyOf(run.id, index, step.id);
      const recorder: StepRecorder = { calls: [] };
      // An LLM step with tools (or an output schema) runs a tool loop whose rounds and calls are stored as they happen.
      const toolStep = step.kind === 'llm' ? await runners.toolStepOf(run.agent, flow, step, {
        index,
        stepKey,
        pending: run.progress.pending?.index === index ? run.progress.pending : undefined,
        signal,
        recorder,
        store: async (events, calls) => {
          usage = addCalls(usage, calls);
          spent.usage = usage;
          await append(events, usage);
        },
      }) : undefined;
      const attempts = { count: 1 };
      const startedAt = new Date();
      const started = performance.now();
      const priced = async () => (deps.price ? await deps.price(recorder.calls) : recorder.calls);
      /** The step's record: its output, timing, tries and priced calls (a failed one: no output, `failed`). */
      const record = (output: unknown, calls: StepLlmCall[], failed: boolean): RunEvent => ({
        type: 'step', index, stepId: step.id, output, kind: step.kind, ...(failed ? { failed: true as const } : {}), startedAt: startedAt.toISOString(), durationMs: Math.round(performance.now() - started), attempts: attempts.count, calls,
        ...(recorder.remote ? { remote: recorder.remote } : {}),
      });
      last = await inSpan(`step ${step.id}`, { attributes: { 'service.step.id': step.id, 'service.step.kind': step.kind, 'service.step.index': index, ...(step.kind === 'call' ? { 'gen_ai.agent.name': step.agent } : {}) } }, () => runners.run(flow, step, context, stepKey, signal, recorder, attempts, toolStep?.setup))
      .catch(async (error: unknown) => {
        // A failing step's calls were made and are paid for: its record keeps them for the run's usage and timeline.
        const calls = recorder.calls.length ? await priced().catch(() => recorder.calls) : [];
        spent.usage = addCalls(usage, calls);
        spent.failedStep = record(null, calls, true);
        throw error;
      });
      const approval = toolStep?.host.paused();
      if (approval) {
        // A tool call waits for a human: the run pauses as at an ask step; the answer decides the call and the step goes on.
        if (signal.aborted) return null;
        await append([{ type: 'status', status: status('input-required', approval.title), final: true, interrupt: approval }]);
        await lease.pause();
        return null;
      }
      outputs[step.id] = last;
      const calls = await priced();
      usage = addCalls(usage, calls);
      spent.usage = usage;
      const stepEvent = record(last, calls, false);
      // The last step's event goes out with the answer below, in the same insert.
      if (index + 1 < steps.length) await append([stepEvent], usage);
      else finalStep = stepEvent;
    }
    if (signal.aborted) return null;
    const text = typeof last === 'string' ? last : JSON.stringify(last);
    const answer: RunEvent = { type: 'artifact', artifact: { id: crypto.randomUUID(), name: 'answer', parts: [{ type: 'text', text }] }, lastChunk: true };
    const completed = status('completed', text);
    // The run's usage rides on its final status, so a caller's stream ends with it (A2A `metadata.usage`).
    // The last step's record goes after them in the same insert: the events a caller sees keep the
    // sequence numbers they had before steps were recorded (the record is internal, never sent).
    await append([answer, { type: 'status', status: completed, final: true, ...(usage ? { metadata: { usage } } : {}) }, ...(finalStep ? [finalStep] : [])], usage);
    return { ...run, state: 'completed', status: completed, artifacts: [...run.artifacts, (answer as Extract<RunEvent, { type: 'artifact' }>).artifact], history: [...run.history, completed.message!], lastSeq: tail.seq, tail, updatedAt: completed.timestamp, interrupt: null, progress: { stepIndex: finalStep?.type === 'step' ? finalStep.index + 1 : steps.length, outputs }, ...(usage ? { usage } : {}) };
  }

  /**
   * Works on a run under lease `generation` until it ends, pauses, or the lease is lost.
   * `takeover`: the run was another worker's; its continuation is announced with an event that
   * starts this generation, so the other worker's next write is refused.
   */
  function launch(runId: string, generation: number, options: { known?: RunView; takeover?: boolean } = {}): Promise<RunView | null> {
    if (active.has(runId)) return Promise.resolve(null);
    const controller = new AbortController();
    // What set this execution off (an answer's request, say): its span is linked from the run's.
    const cause = activeContext();
    active.set(runId, controller);
    const lease = leases.hold(runId, generation, () => controller.abort());
    const spent: Spent = {};
    const work = async (): Promise<RunView | null> => {
      let run = options.known ?? (await deps.runs.get(runId));
      if (!run) return null;
      if (options.takeover) {
        const settled = new Error('the run is no longer active');
        const tail = await eventLog.append(runId, { type: 'status', status: status('working', 'Resumed after the host restarted'), final: false }, {
          generation,
          expect: (at) => {
            if (!ACTIVE_STATES.includes(at.state)) throw settled;
          },
        }).catch((error: unknown) => {
          if (error === settled) return null;
          throw error;
        });
        // It paused or ended meanwhile (its head had not said so yet): nothing to continue.
        if (!tail) {
          await lease.pause();
          return null;
        }
        run = { ...run, state: 'working', tail };
      }
      // The run's span continues the trace it was started in (stored with it), whichever process
      // and however much later it runs: a resumed or taken-over run is a new span of the same trace.
      const started = run;
      return inSpan(`invoke_agent ${started.agent}`, { parent: contextFromTraceparent(started.traceparent), links: [cause], attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': started.agent, 'service.run.id': runId, 'service.run.generation': generation, 'service.run.takeover': !!options.takeover } }, () => execute(started, generation, lease, controller.signal, spent));
    };
    return work()
      .catch(async (error: unknown) => {
        // Another worker has the run, or it ended (canceled elsewhere): nothing of this worker's stands.
        if (error instanceof LeaseLostError || error instanceof RunEndedError) {
          if (error instanceof LeaseLostError) deps.logger.warn('run taken over by another worker; this one stopped before writing', { runId, generation });
          return null;
        }
        // An outage is not the agent's failure: the run stays active, its lease lapses, and the
        // recovery pass continues it from its last stored step once the database answers.
        if (isDatabaseUnreachable(error) || (error instanceof DomainError && error.code === 'DEPENDENCY_UNAVAILABLE')) {
          deps.logger.warn('the database went away under a running run; it is continued from its last stored step once the database is back', { runId, generation });
          return null;
        }
        const message = error instanceof DomainError ? error.message : 'The agent failed';
        if (!(error instanceof DomainError)) deps.logger.error('run failed', { error, runId });
        // The usage of the steps that ran, the failing one's calls included, rides on the failed status as on a completed one.
        // The failing step's record goes after the status, as a completed run's last step does.
        const { usage, failedStep } = spent;
        const ending: RunEvent = { type: 'status', status: status('failed', message), final: true, ...(usage ? { metadata: { usage } } : {}) };
        await eventLog.appendAll(runId, [ending, ...(failedStep ? [failedStep] : [])], { fence: generation, ...(usage ? { usage } : {}) }).catch((failure: unknown) => {
          if (!(failure instanceof LeaseLostError || failure instanceof RunEndedError)) deps.logger.error('could not record a run failure', { error: failure, runId });
        });
        return null;
      })
      .finally(() => {
        active.delete(runId);
        void lease.release();
      });
  }

  async function recoverOrphans(): Promise<string[]> {
    const taken: string[] = [];
    for (const orphan of await leases.orphans({ remote: false })) {
      if (active.has(orphan.runId)) continue;
      const generation = await takeOver(orphan);
      if (generation === null) continue;
      taken.push(orphan.runId);
      void launch(orphan.runId, generation, { takeover: true });
    }
    return taken;
  }

  /**
   * The generation after both the lease row's and the log's, if this process wins it. A run whose
   * log has paused or ended (its head had not caught up: a crash between the event and the head)
   * is not taken: its head is moved forward instead, so the next pass drops its lease row.
   */
  async function takeOver(orphan: Orphan): Promise<number | null> {
    // A run whose creator died before it knew its keys were taken: a duplicate nobody asked for.
    if (await deps.runs.isDuplicate(orphan.runId)) return null;
    const tail = await eventLog.readTail(orphan.runId);
    if (!ACTIVE_STATES.includes(tail.state)) {
      await deps.runs.get(orphan.runId);
      return null;
    }
    const generation = Math.max(orphan.generation, tail.generation) + 1;
    return (await leases.takeOver(orphan, generation)) ? generation : null;
  }

  async function resume(runId: string, answer: Answer, message?: RunMessage, by?: RunActor): Promise<number> {
    const run = await deps.runs.get(runId);
    if (!run) throw new DomainError('NOT_FOUND', 'Task not found');
    const interrupt = run.interrupt;
    if (run.state !== 'input-required' || !interrupt) throw notWaiting(run.tail);
    if (answer.screenId !== interrupt.screenId) throw new DomainError('VALIDATION_FAILED', `The task is waiting for screen "${interrupt.screenId}", not "${answer.screenId}"`);
    const validate = screenValidator(interrupt.schema);
    if (!validate(answer.values)) {
      throw new DomainError('VALIDATION_FAILED', "The answer does not match the screen's schema", {
        details: (validate.errors ?? []).map((e) => ({ path: `values${e.instancePath.replace(/\//g, '.')}`, reason: e.message ?? 'invalid' })),
      });
    }
    // In the working set before the answer is stored, so a crash right after it leaves the run recoverable.
    const leased = await leases.adopt(runId);
    const generation = Math.max(leased, run.tail.generation) + 1;
    const pausedAt = run.tail.seq;
    const toolCallId = interrupt.tool?.callId;
    const tail = await eventLog.append(runId, { type: 'status', status: status('working', 'Resumed'), final: false, answer: { ...answer, stepId: interrupt.stepId, stepIndex: run.progress.stepIndex, ...(by ? { by } : {}), ...(toolCallId ? { toolCallId } : {}) }, ...(message ? { received: message } : {}) }, {
      generation,
      // The first answer stored after the pause wins; any other finds the run moved on.
      expect: (at) => {
        if (at.seq !== pausedAt || at.state !== 'input-required') throw notWaiting(at);
      },
    }).catch((error: unknown) => {
      if (error instanceof RunEndedError) throw notWaiting({ ...run.tail, state: error.state });
      if (error instanceof LeaseLostError) throw new DomainError('CONFLICT', 'The task is working, not waiting for input: it took another answer');
      throw error;
    });
    await leases.claim(runId, generation);
    // An approval goes with its tool call and the step goes on; an ask step's answer is the step's output.
    const progress = toolCallId ? withApproval(run.progress, toolCallId, answer.values, by) : { stepIndex: run.progress.stepIndex + 1, outputs: { ...run.progress.outputs, [interrupt.stepId]: answer.values } };
    const continued: RunView = { ...run, state: 'working', interrupt: null, tail, lastSeq: tail.seq, progress };
    void launch(runId, generation, { known: continued });
    return tail.seq;
  }

  return {
    start: (runId, created) => launch(runId, 0, created ? { known: created } : {}),
    useRuntime: (target) => runners.useRuntime(target),
    toolHost: (handle) => runners.toolHost(handle),
    recoverOrphans,
    callAgent: (agent, input, signal, stepKey, recorder) => runners.callAgent(agent, input, signal ?? new AbortController().signal, stepKey ?? crypto.randomUUID(), recorder ?? { calls: [] }),
    resume,

    async cancel(runId) {
      const run = await deps.runs.head(runId);
      if (!run) throw new DomainError('NOT_FOUND', 'Task not found');
      active.get(runId)?.abort();
      try {
        // Stored once, like every ending: if the run ended elsewhere first, that ending stands.
        await eventLog.append(runId, { type: 'status', status: status('canceled', 'Canceled'), final: true, ...(run.usage ? { metadata: { usage: run.usage } } : {}) });
      } catch (error) {
        if (!(error instanceof RunEndedError)) throw error;
        throw new DomainError('TASK_NOT_CANCELABLE', `The task is already ${error.state}`);
      }
      return (await deps.runs.get(runId))!;
    },
  };
}
