import type { StoredEvent, Tail } from './event-log.ts';
import type { Interrupt, RemoteLink, RunArtifact, RunMessage, RunState, RunStatus, RunUsage } from './model.ts';
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
        if (event.answer) {
          view.progress.outputs[event.answer.stepId] = event.answer.values;
          view.progress.stepIndex = event.answer.stepIndex + 1;
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
        if (!event.failed) view.progress.stepIndex = event.index + 1;
        if (event.calls?.length) view.usage = addCalls(fromSteps ? view.usage : undefined, event.calls);
        fromSteps = true;
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
