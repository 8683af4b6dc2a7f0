import type { StoredEvent, Tail } from './event-log.ts';
import type { Interrupt, RemoteLink, RunActor, RunArtifact, RunMessage, RunState, RunStatus, RunUsage, StepLlmCall, StoredToolCall, ToolActivity } from './model.ts';
import { addCalls } from './usage-sum.ts';

/** A run as listings show it: its head. */
export interface RunSummary {
  id: string;
  contextId: string;
  agent: string;
  state: RunState;
  status: RunStatus;
  /** The last event shown here (for a summary, its latest status; for a whole view, the log's end). */
  lastSeq: number;
  actorType: string;
  actorId: string;
  input: RunMessage;
  /** Set for a run bridged from a peer. */
  remote: RemoteLink | null;
  /** The trace the run was started in (W3C `traceparent`), present only while tracing is on; its execution continues it. */
  traceparent?: string;
  /** LLM usage rolled up from the run's steps (absent until a step reported some). */
  usage?: RunUsage;
  createdAt: string;
  updatedAt: string;
}

/** A run read whole: its head with everything its log says. */
export interface RunView extends RunSummary {
  /** Messages after the input, in order: the agent's status messages and the caller's answers. */
  history: RunMessage[];
  artifacts: RunArtifact[];
  /** What the run waits for, while it is paused. */
  interrupt: Interrupt | null;
  /** Where the executor stands (internal). */
  progress: RunProgress;
  /** Where the log ends. */
  tail: Tail;
}

/** The executor's position: the next step to run and the outputs of the steps before it. */
export interface RunProgress {
  stepIndex: number;
  outputs: Record<string, unknown>;
  /** What the step at `stepIndex` did so far when it calls tools: its stored rounds, calls, results and approvals. */
  pending?: PendingToolStep;
}

/** The stored part of an unfinished LLM step with tools, from which the executor continues it. */
export interface PendingToolStep {
  index: number;
  /** Stored rounds by round number. */
  rounds: { text: string; toolCalls: StoredToolCall[] }[];
  /** Calls whose `call` record is stored (made, or being made when the worker stopped), by call id. */
  started: Record<string, true>;
  results: Record<string, Extract<ToolActivity, { phase: 'result' }>>;
  /** Approvals given, by call id: the screen's values and who gave them. */
  approvals: Record<string, { values: Record<string, unknown>; by?: RunActor }>;
}

/**
 * Folds a run's events (the whole log, in order) onto its head: the log decides state, status,
 * history, artifacts, the pending pause, the executor's position and the usage (the steps' LLM
 * calls summed); the head contributes what never changes (caller, agent, input).
 */
export function foldRun(head: RunSummary, events: StoredEvent[]): RunView {
  const view: RunView = { ...head, history: [], artifacts: [], interrupt: null, progress: { stepIndex: 0, outputs: {} }, tail: { seq: 0, state: head.state, generation: 0 } };
  /** Whether `view.usage` is summed from the log's steps yet (until then it is the head's). */
  let fromSteps = false;
  const count = (calls: StepLlmCall[] | undefined) => {
    if (calls?.length) view.usage = addCalls(fromSteps ? view.usage : undefined, calls);
    fromSteps = true;
  };
  /** The pending tool step at `index`, begun afresh when the log moves to another step. */
  const pendingAt = (index: number): PendingToolStep => {
    if (view.progress.pending?.index !== index) view.progress.pending = { index, rounds: [], started: {}, results: {}, approvals: {} };
    return view.progress.pending;
  };
  for (const { seq, event, state, generation } of events) {
    view.tail = { seq, state, generation };
    switch (event.type) {
      case 'created':
        view.status = event.status;
        break;
      case 'status':
        if (event.received) view.history.push(event.received);
        if (event.status.message) view.history.push(event.status.message);
        view.status = event.status;
        view.interrupt = event.interrupt ?? null;
        if (event.answer?.toolCallId) {
          pendingAt(event.answer.stepIndex).approvals[event.answer.toolCallId] = { values: event.answer.values, ...(event.answer.by ? { by: event.answer.by } : {}) };
        } else if (event.answer) {
          view.progress.outputs[event.answer.stepId] = event.answer.values;
          view.progress.stepIndex = event.answer.stepIndex + 1;
        }
        if (event.tool?.phase === 'call') pendingAt(event.tool.index).started[event.tool.callId] = true;
        if (event.tool?.phase === 'result') {
          pendingAt(event.tool.index).results[event.tool.callId] = event.tool;
          count(event.tool.calls);
        }
        break;
      case 'artifact': {
        const at = view.artifacts.findIndex((artifact) => artifact.id === event.artifact.id);
        if (at < 0) view.artifacts.push(event.artifact);
        else if (event.append) view.artifacts[at] = { ...view.artifacts[at]!, parts: [...view.artifacts[at]!.parts, ...event.artifact.parts] };
        else view.artifacts[at] = event.artifact;
        break;
      }
      case 'message':
        view.history.push(event.message);
        break;
      case 'step':
        // A skipped step has no output: templates and `when` read it as missing.
        if (!event.skipped && !event.failed) view.progress.outputs[event.stepId] = event.output;
        if (!event.failed) {
          view.progress.stepIndex = event.index + 1;
          delete view.progress.pending;
        }
        count(event.calls);
        break;
      case 'round':
        pendingAt(event.index).rounds[event.round] = { text: event.text, toolCalls: event.toolCalls };
        count(event.call ? [event.call] : undefined);
        break;
      case 'progress':
        view.progress = { stepIndex: event.stepIndex, outputs: { ...event.outputs } };
        break;
    }
  }
  if (events.length > 0) {
    view.state = view.tail.state;
    view.lastSeq = view.tail.seq;
    view.updatedAt = view.status.timestamp;
  }
  if (view.state !== 'input-required' && view.state !== 'auth-required') view.interrupt = null;
  return view;
}
