import { mayAccessRun, type AgentAccessActor } from '../auth/index.ts';
import { DomainError } from '../errors/index.ts';
import { isFinalEvent, isSettled, isTerminal, isVisible, type Answer, type EventLog, type Metadata, type RunExecutor, type RunMessage, type RunState, type RunStore, type RunView, type StoredEvent, type VisibleRunEvent } from '../runs/index.ts';
import type { AgentCard } from './agent-card.ts';
import { answerOf } from './hitl-answer.ts';
import type { JsonRpcId } from './jsonrpc.ts';
import { sseFrame } from './sse.ts';
import type { PushConfigInput, PushConfigs, PushProtocol } from './push/index.ts';

export interface A2aOperationsDeps {
  card: () => Promise<AgentCard>;
  /** The v1.0 card: the host's, or one agent's when `agent` is set. */
  cardV1: (agent: string | null) => Promise<Record<string, unknown>>;
  /** The agent a message without `metadata.skillId` goes to: the admin's choice, else the only one. */
  defaultAgent: () => Promise<string | null>;
  /** Starting a run: the service's one way (use-cases), which the admin UI calls too. */
  startRun: (actor: AgentAccessActor, input: { agent: string; message: RunMessage; idempotencyKey: string | null }) => Promise<{ run: RunView; created: boolean; execution: Promise<RunView | null> | null; events?: StoredEvent[] }>;
  /** Answering a paused run: the service's one way (use-cases), which the admin UI calls too. */
  answerPause: (actor: AgentAccessActor, runId: string, answer: Answer, message: RunMessage) => Promise<{ answerSeq: number }>;
  /** Reads only: this seam starts and answers runs through `startRun` and `answerPause`. */
  runs: Pick<RunStore, 'get' | 'readAll' | 'listOwned' | 'ownsListToken'>;
  eventLog: Pick<EventLog, 'follow'>;
  executor: Pick<RunExecutor, 'cancel'>;
  /** Push notification configs; without them every push method answers PUSH_NOTIFICATION_NOT_SUPPORTED. */
  push?: Pick<PushConfigs, 'check' | 'set' | 'get' | 'list' | 'remove'>;
}

/** A message sent to the service, in the run model's terms, with the request's metadata. */
export interface SendParams {
  message: RunMessage;
  metadata?: Metadata;
  /** A push notification config sent with the message (`configuration.taskPushNotificationConfig`), set on its task. */
  pushConfig?: { input: PushConfigInput; protocol: PushProtocol };
}

/**
 * What both protocol versions do, on the run model: start or continue a run, wait for it,
 * follow its log, read, cancel and list. The version modules only translate shapes.
 */
export function createA2aOperations(deps: A2aOperationsDeps) {
  async function targetAgent(sendParams: SendParams, fixed: string | null): Promise<string> {
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

  /** The caller's task; on one agent's endpoint (`agent` set), only a task of that agent. */
  async function visibleRun(actor: AgentAccessActor, runId: string, permission: 'read' | 'execute', agent: string | null = null): Promise<RunView> {
    const run = await deps.runs.get(runId);
    // Someone else's task, or another agent's on an agent's endpoint, looks exactly like a missing one.
    if (!run || !mayAccessRun(actor, run, permission) || (agent !== null && run.agent !== agent)) throw new DomainError('NOT_FOUND', 'Task not found');
    return run;
  }

  /** The event of `run` that took this caller's message, when a retried answer (same messageId) comes again. */
  async function answered(run: RunView, messageId: string): Promise<number | null> {
    const events = await deps.runs.readAll(run.id);
    return events.find((stored) => stored.event.type === 'status' && stored.event.received?.id === messageId)?.seq ?? null;
  }

  /**
   * Starts a run, continues a paused one with an answer, or finds the retried one. `startSeq` is
   * where the caller's stream starts: after the events it has already seen. `stored`: the first
   * events of a run this call created, as stored (from seq 1), which `frames` sends without
   * reading them back.
   */
  async function send(actor: AgentAccessActor, sendParams: SendParams, idempotencyKey: string | null, fixedAgent: string | null = null): Promise<{ run: RunView; startSeq: number; execution?: Promise<RunView | null>; stored?: StoredEvent[] }> {
    const { message, pushConfig } = sendParams;
    // Checked before the task starts or goes on, so a config that will be refused stops the send.
    if (pushConfig) await pushConfigs().check(pushConfig.input);
    const withPush = async <T extends { run: RunView }>(result: T): Promise<T> => {
      if (pushConfig) await pushConfigs().set(actor, result.run, pushConfig.input, pushConfig.protocol, { fromStart: !message.runId });
      return result;
    };
    if (message.runId) {
      const run = await visibleRun(actor, message.runId, 'execute', fixedAgent);
      // A retried answer (same messageId) replays from the answer instead of answering twice.
      const replay = await answered(run, message.id);
      if (replay !== null) return { run, startSeq: replay - 1 };
      if (isTerminal(run.state)) throw new DomainError('UNSUPPORTED_OPERATION', `Task ${run.id} is ${run.state}: a task in a terminal state cannot be restarted; start a new task`);
      const answer = answerOf(message, run.interrupt);
      if (!answer) {
        throw new DomainError('VALIDATION_FAILED', run.state === 'input-required'
          ? 'The task is waiting for input: answer with a data part { "resume": { "screenId", "values" } }, a data part of just the values, or (for a screen with one text field) plain text'
          : `Task ${run.id} is ${run.state} and takes no messages until it asks for input`);
      }
      const { answerSeq } = await deps.answerPause(actor, run.id, answer, { ...message, runId: run.id, contextId: run.contextId }).catch(async (error: unknown) => {
        // The same answer sent twice at once: the one stored first counts, the other replays it.
        const first = error instanceof DomainError && error.code === 'CONFLICT' ? await answered(run, message.id) : null;
        if (first === null) throw error;
        return { answerSeq: first };
      });
      // The stream of an answer starts with the answer's own event.
      return withPush({ run: (await deps.runs.get(run.id))!, startSeq: answerSeq - 1 });
    }
    const agent = await targetAgent(sendParams, fixedAgent);
    const { run, execution, events } = await deps.startRun(actor, { agent, message, idempotencyKey });
    // A retried request (same Idempotency-Key or messageId) gets the whole stream again unless
    // it says where it stopped with Last-Event-ID.
    return withPush({ run, startSeq: 0, ...(execution ? { execution } : {}), ...(events?.length ? { stored: events } : {}) });
  }

  /** A send that answers once the task completes, fails or pauses (unless asked to return at once). */
  async function sendAndWait(actor: AgentAccessActor, sendParams: SendParams, idempotencyKey: string | null, fixedAgent: string | null, options: { returnImmediately: boolean; signal: AbortSignal }): Promise<RunView> {
    const { run, startSeq, execution } = await send(actor, sendParams, idempotencyKey, fixedAgent);
    if (options.returnImmediately) return run;
    // Executing here: wait for the executor itself rather than following the event log, unless
    // another worker holds the run (then the log tells when it settles).
    let done = execution ? await execution : null;
    if (!done || !isSettled(done.state)) {
      for await (const stored of deps.eventLog.follow(run.id, startSeq, options.signal)) void stored;
      done = (await deps.runs.get(run.id))!;
    }
    return done;
  }

  /**
   * The run's visible events after `afterSeq`, each with its sequence number (what a stream's
   * Last-Event-ID names). `known`: events this process has just stored (a new run's first ones,
   * dense from seq 1): those after `afterSeq` go out at once, without a read, and the log is
   * followed from the last of them.
   */
  async function* events(runId: string, afterSeq: number, signal: AbortSignal, known: StoredEvent[] = []): AsyncGenerator<{ seq: number; event: VisibleRunEvent }> {
    let from = afterSeq;
    let lastSeen: StoredEvent | undefined;
    for (const stored of known) {
      if (stored.seq !== from + 1) continue;
      from = stored.seq;
      lastSeen = stored;
      if (isVisible(stored.event)) yield { seq: stored.seq, event: stored.event };
      if (isFinalEvent(stored.event)) return;
    }
    for await (const stored of deps.eventLog.follow(runId, from, signal, lastSeen ? { lastSeen } : {})) {
      if (isVisible(stored.event)) yield { seq: stored.seq, event: stored.event };
    }
  }

  /** The run's log after `afterSeq` as SSE frames, each event written by `shape` (`known`: as for `events`). */
  async function* frames(rpcId: JsonRpcId, run: { id: string; contextId: string }, afterSeq: number, signal: AbortSignal, shape: (event: VisibleRunEvent, seq: number) => unknown, known: StoredEvent[] = []): AsyncGenerator<string> {
    for await (const { seq, event } of events(run.id, afterSeq, signal, known)) yield sseFrame(rpcId, seq, shape(event, seq));
  }

  function pushConfigs(): NonNullable<A2aOperationsDeps['push']> {
    if (!deps.push) throw new DomainError('PUSH_NOTIFICATION_NOT_SUPPORTED', 'Push notifications are not supported by this agent (capabilities.pushNotifications is false)');
    return deps.push;
  }

  /**
   * The push notification config methods of every binding: on a task of the caller's (and, on an
   * agent's endpoint, of that agent), configs of the caller's own.
   */
  const push = {
    /** Throws PUSH_NOTIFICATION_NOT_SUPPORTED when push is off, before anything else is read. */
    supported: (): void => void pushConfigs(),
    async set(actor: AgentAccessActor, taskId: string, input: PushConfigInput, protocol: PushProtocol, agent: string | null) {
      const configs = pushConfigs();
      return configs.set(actor, await visibleRun(actor, taskId, 'read', agent), input, protocol);
    },
    async get(actor: AgentAccessActor, taskId: string, configId: string, agent: string | null) {
      const configs = pushConfigs();
      return configs.get(actor, (await visibleRun(actor, taskId, 'read', agent)).id, configId);
    },
    async list(actor: AgentAccessActor, taskId: string, agent: string | null) {
      const configs = pushConfigs();
      return configs.list(actor, (await visibleRun(actor, taskId, 'read', agent)).id);
    },
    async remove(actor: AgentAccessActor, taskId: string, configId: string, agent: string | null) {
      const configs = pushConfigs();
      await configs.remove(actor, (await visibleRun(actor, taskId, 'read', agent)).id, configId);
    },
  };

  return {
    push,
    send,
    sendAndWait,
    visibleRun,
    events,
    frames,
    cancel: (runId: string) => deps.executor.cancel(runId),
    listOwned: (actor: AgentAccessActor, options: { pageSize: number; after?: string | null; contextId?: string; state?: RunState; updatedAfter?: number; whole?: boolean; agent?: string }) => deps.runs.listOwned(actor, options),
    ownsListToken: (actor: AgentAccessActor, token: string) => deps.runs.ownsListToken(actor, token),
    cardV1: deps.cardV1,
  };
}

export type A2aOperations = ReturnType<typeof createA2aOperations>;
