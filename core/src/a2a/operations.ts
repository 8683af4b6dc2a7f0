import { assertAgentAccess, mayAccessRun, type AgentAccessActor } from '../auth/index.ts';
import { TERMINAL_STATES, type TaskState } from '../db/index.ts';
import { DomainError } from '../errors/index.ts';
import type { EventLog, RunExecutor, RunStore, RunView } from '../runs/index.ts';
import type { AgentCard } from './agent-card.ts';
import { answerOf } from './hitl-answer.ts';
import type { JsonRpcId } from './jsonrpc.ts';
import { sseFrame } from './sse.ts';
import type { A2aEvent, MessageSendParams } from './protocol.ts';

const SETTLED: readonly string[] = [...TERMINAL_STATES, 'input-required'];

export interface A2aOperationsDeps {
  card: () => Promise<AgentCard>;
  /** The v1.0 card: the host's, or one agent's when `agent` is set. */
  cardV1: (agent: string | null) => Promise<Record<string, unknown>>;
  /** The agent a message without `metadata.skillId` goes to: the admin's choice, else the only one. */
  defaultAgent: () => Promise<string | null>;
  runs: RunStore;
  eventLog: EventLog;
  executor: RunExecutor;
}

/**
 * What both protocol versions do, on the one internal run model: start or continue a run, wait
 * for it, follow its log, read, cancel and list. The version modules only translate shapes.
 */
export function createA2aOperations(deps: A2aOperationsDeps) {
  async function targetAgent(sendParams: MessageSendParams, fixed: string | null): Promise<string> {
    const wanted = sendParams.message.metadata?.skillId ?? sendParams.metadata?.skillId;
    const skills = (await deps.card()).skills;
    if (fixed) {
      if (typeof wanted === 'string' && wanted !== fixed) throw new DomainError('VALIDATION_FAILED', `This endpoint serves ${fixed}; metadata.skillId names "${wanted}"`);
      return fixed;
    }
    if (typeof wanted === 'string') {
      if (!skills.some((s) => s.id === wanted)) throw new DomainError('VALIDATION_FAILED', `No skill "${wanted}" on this host`);
      return wanted;
    }
    const chosen = await deps.defaultAgent();
    if (chosen && skills.some((s) => s.id === chosen)) return chosen;
    if (skills.length === 1) return skills[0]!.id;
    if (skills.length === 0) throw new DomainError('UNSUPPORTED_OPERATION', 'No agent is published on this host yet');
    throw new DomainError('VALIDATION_FAILED', 'Name the agent: set message.metadata.skillId to one of the AgentCard skill ids, or use its own endpoint /a2a/<vendor>/<slug>', {
      details: skills.map((s) => ({ path: 'message.metadata.skillId', reason: s.id })),
    });
  }

  async function visibleRun(actor: AgentAccessActor, runId: string, permission: 'read' | 'execute'): Promise<RunView> {
    const run = await deps.runs.get(runId);
    // Someone else's task looks exactly like a missing one.
    if (!run || !mayAccessRun(actor, run, permission)) throw new DomainError('NOT_FOUND', 'Task not found');
    return run;
  }

  /** Starts a run, continues a paused one with an answer, or finds the retried one. */
  async function send(actor: AgentAccessActor, sendParams: MessageSendParams, idempotencyKey: string | null, fixedAgent: string | null = null): Promise<{ run: RunView; startSeq: number; execution?: Promise<RunView | null> }> {
    const { message } = sendParams;
    if (message.taskId) {
      const run = await visibleRun(actor, message.taskId, 'execute');
      if (fixedAgent && run.agent !== fixedAgent) throw new DomainError('NOT_FOUND', 'Task not found');
      if (TERMINAL_STATES.includes(run.state)) throw new DomainError('UNSUPPORTED_OPERATION', `Task ${run.id} is ${run.state}: a task in a terminal state cannot be restarted; start a new task`);
      const resume = answerOf(message, run.progress.interrupt ?? null);
      if (!resume) {
        throw new DomainError('VALIDATION_FAILED', run.state === 'input-required'
          ? 'The task is waiting for input: answer with a data part { "resume": { "screenId", "values" } }, a data part of just the values, or (for a screen with one text field) plain text'
          : `Task ${run.id} is ${run.state} and takes no messages until it asks for input`);
      }
      // A retried answer (same messageId) replays instead of resuming twice.
      if (!(await deps.runs.claimMessage(actor, message.messageId, run.id))) return { run, startSeq: run.lastSeq };
      const startSeq = run.lastSeq;
      try {
        await deps.executor.resume(run.id, resume, { ...message, taskId: run.id, contextId: run.contextId });
      } catch (error) {
        await deps.runs.releaseMessage(actor, message.messageId);
        throw error;
      }
      return { run: (await deps.runs.get(run.id))!, startSeq };
    }
    const agent = await targetAgent(sendParams, fixedAgent);
    assertAgentAccess(actor, agent, 'execute');
    // Started right below in this process, so the run is stored already working.
    const { run, created } = await deps.runs.create(actor, { agent, message, idempotencyKey, working: true });
    // A retried request (same Idempotency-Key or messageId) gets the whole stream again unless
    // it says where it stopped with Last-Event-ID.
    if (!created) return { run, startSeq: 0 };
    const execution = deps.executor.start(run.id, run);
    return { run, startSeq: 0, execution };
  }

  /** A send that answers once the task completes, fails or pauses (unless asked to return at once). */
  async function sendAndWait(actor: AgentAccessActor, sendParams: MessageSendParams, idempotencyKey: string | null, fixedAgent: string | null, options: { returnImmediately: boolean; signal: AbortSignal }): Promise<RunView> {
    const { run, startSeq, execution } = await send(actor, sendParams, idempotencyKey, fixedAgent);
    if (options.returnImmediately) return run;
    // Executing here: wait for the executor itself rather than following the event log, unless
    // another worker holds the run (then the log tells when it settles).
    let done = execution ? await execution.then(async (finished) => finished ?? (await deps.runs.get(run.id))!) : null;
    if (!done || !SETTLED.includes(done.state)) {
      for await (const stored of deps.eventLog.follow(run.id, startSeq, options.signal)) void stored;
      done = (await deps.runs.get(run.id))!;
    }
    return done;
  }

  /** The run's log after `afterSeq` as SSE frames, each event written by `shape`. */
  async function* frames(rpcId: JsonRpcId, runId: string, afterSeq: number, signal: AbortSignal, shape: (event: A2aEvent, seq: number) => unknown): AsyncGenerator<string> {
    for await (const stored of deps.eventLog.follow(runId, afterSeq, signal)) {
      yield sseFrame(rpcId, stored.seq, shape(stored.event, stored.seq));
    }
  }

  return {
    send,
    sendAndWait,
    visibleRun,
    frames,
    cancel: (runId: string) => deps.executor.cancel(runId),
    listOwned: (actor: AgentAccessActor, options: { pageSize: number; after?: string | null; contextId?: string; state?: TaskState; updatedAfter?: number }) => deps.runs.listOwned(actor, options),
    ownsListToken: (actor: AgentAccessActor, token: string) => deps.runs.ownsListToken(actor, token),
    cardV1: deps.cardV1,
  };
}

export type A2aOperations = ReturnType<typeof createA2aOperations>;
