import { randomUUID } from 'node:crypto';
import type { Actor } from '../../auth/index.ts';
import { DomainError } from '../../errors/index.ts';
import type { Logger } from '../../log/index.ts';
import { ACTIVE_STATES, isTerminal, LeaseLostError, RunEndedError, type Answer, type EventLog, type Interrupt, type Metadata, type RunActor, type RunEvent, type RunLeases, type RunMessage, type RunPart, type RunStore, type RunView, type Tail } from '../../runs/index.ts';
import { screenValidator } from '../../agents/index.ts';
import { peerPause } from '../wire.ts';
import type { A2aClient, RemoteEvent } from './a2a-client.ts';

/** A remote stream opens with its Task as event 1; with nothing else stored, resume after it. */
const REMOTE_TASK_EVENT_ID = 1;

/** Where a bridged event came from: recorded on every event appended from a peer. */
interface RemoteOrigin {
  peerId: string;
  taskId: string | null;
  eventId: number | null;
}

const originOf = (event: RunEvent): RemoteOrigin | undefined => ((event as { metadata?: Metadata }).metadata?.remote as RemoteOrigin | undefined) ?? undefined;

/**
 * Runs a remote agent as a local run: every remote event is appended to the local run's event
 * log (the peer's task id and event id kept in its metadata), so the local UI and local
 * subscribers only ever read the local stream. A remote pause lands locally as the same
 * INTERRUPT; `resume` answers it on the remote side. The follower holds the local run's lease
 * and writes under its generation, like the executor: a follower that stalled and was taken
 * over stops at its next write.
 */
export function createRemoteBridge(deps: { client: A2aClient; runs: RunStore; eventLog: EventLog; leases: RunLeases; logger: Logger }) {
  const following = new Set<string>();

  /**
   * Appends the remote events to the local log under lease `generation` until a final one.
   * `onEvent` hears of each remote event once it is stored (the opening Task snapshot, which is
   * not stored, as soon as it comes).
   */
  async function pump(run: RunView, generation: number, peerId: string, events: AsyncGenerator<RemoteEvent>, first: { tail?: Tail; taskId?: string | null; onEvent?: () => void } = {}): Promise<RunView> {
    const controller = new AbortController();
    const lease = deps.leases.hold(run.id, generation, () => controller.abort());
    following.add(run.id);
    let remoteTaskId = first?.taskId ?? null;
    let paused = false;
    try {
      let tail = first.tail;
      for await (const { id, event, taskId } of events) {
        // Another process took the run over (this one stalled past its lease): it follows on.
        if (controller.signal.aborted) break;
        remoteTaskId ??= taskId;
        // The task snapshot that opens a remote stream is already in the local log as our own run,
        // unless it opens paused or ended (an agent that answers at once): then its status is the event.
        if (event.type === 'created' && ACTIVE_STATES.includes(event.status.state)) {
          first.onEvent?.();
          continue;
        }
        if (event.type === 'created') {
          const asks = event.status.state === 'input-required';
          const opening: RunEvent = { type: 'status', status: event.status, final: true, ...(asks ? { interrupt: peerPause(event.status.message) } : {}) };
          tail = await deps.eventLog.append(run.id, localize(opening, { peerId, taskId: remoteTaskId, eventId: id }), { fence: generation, ...(tail ? { knownTail: tail } : {}) });
          first.onEvent?.();
          if (!isTerminal(event.status.state)) paused = true;
          continue;
        }
        tail = await deps.eventLog.append(run.id, localize(event, { peerId, taskId: remoteTaskId, eventId: id }), { fence: generation, ...(tail ? { knownTail: tail } : {}) });
        first.onEvent?.();
        if (event.type === 'status' && event.final && !isTerminal(event.status.state)) paused = true;
      }
    } catch (error) {
      if (!(error instanceof LeaseLostError || error instanceof RunEndedError)) throw error;
    } finally {
      following.delete(run.id);
      await (paused ? lease.pause() : lease.release());
    }
    return (await deps.runs.get(run.id))!;
  }

  /** The peer's task id and the last remote event stored in the local log (where to resubscribe from). */
  async function remotePosition(run: RunView): Promise<{ taskId: string | null; eventId: number }> {
    const events = await deps.runs.readAll(run.id);
    const origins = events.flatMap((stored) => originOf(stored.event) ?? []);
    const last = origins.at(-1);
    return { taskId: origins.find((origin) => origin.taskId)?.taskId ?? null, eventId: typeof last?.eventId === 'number' ? last.eventId : REMOTE_TASK_EVENT_ID };
  }

  /** Takes over remote runs whose local follower died and follows them again from the last remote event stored. */
  async function recoverOrphans(): Promise<string[]> {
    const taken: string[] = [];
    for (const orphan of await deps.leases.orphans({ remote: true })) {
      if (following.has(orphan.runId) || (await deps.runs.isDuplicate(orphan.runId))) continue;
      const run = await deps.runs.get(orphan.runId);
      // Paused or ended already (the head lagged its log and has just been moved forward): nothing to follow.
      if (!run?.remote || !ACTIVE_STATES.includes(run.tail.state)) continue;
      const { taskId, eventId } = await remotePosition(run);
      if (!taskId) continue;
      const generation = Math.max(orphan.generation, run.tail.generation) + 1;
      if (!(await deps.leases.takeOver(orphan, generation))) continue;
      taken.push(run.id);
      const peerId = run.remote.peerId;
      deps.logger.info('following a remote run again after a restart', { runId: run.id, peerId, lastEventId: eventId });
      void (async () => {
        // The takeover is an event of this generation: the stalled follower's next write is refused.
        const tail = await deps.eventLog.append(run.id, { type: 'status', status: { state: 'working', timestamp: new Date().toISOString() }, final: false, metadata: { remote: { peerId, taskId, eventId: null } } }, {
          generation,
          expect: (at) => {
            if (!ACTIVE_STATES.includes(at.state)) throw new RunEndedError(run.id, at.state);
          },
        });
        return pump(run, generation, peerId, deps.client.resubscribe(peerId, taskId, { lastEventId: eventId }), { tail, taskId });
      })().catch((error: unknown) => (error instanceof LeaseLostError || error instanceof RunEndedError ? undefined : failLocally(run, error)));
    }
    return taken;
  }

  /**
   * Starts a remote call as a local run: returns the local run at once and, as `done`, the run
   * once the remote side completed, failed or paused.
   */
  async function start(actor: Actor, input: { peerId: string; skillId: string; message: RunMessage }): Promise<{ run: RunView; done: Promise<RunView> }> {
    const message: RunMessage = { ...input.message, metadata: { ...(input.message.metadata ?? {}), skillId: input.skillId } };
    const { run } = await deps.runs.create(actor, { agent: input.skillId, message, remote: { peerId: input.peerId, skillId: input.skillId } });
    // Reconnects inside one stream resend the same message with Last-Event-ID; the remote side
    // recognises the messageId and replays instead of starting (or resuming) twice.
    const done = pump(run, 0, input.peerId, deps.client.stream(input.peerId, { message }), { tail: run.tail }).catch(async (error: unknown) => {
      await failLocally(run, error);
      throw error;
    });
    return { run, done };
  }

  /** Starts a remote call and follows it until it completes, fails or pauses. */
  async function call(actor: Actor, input: { peerId: string; skillId: string; text: string }): Promise<RunView> {
    const message: RunMessage = { id: randomUUID(), role: 'user', parts: [{ type: 'text', text: input.text }] };
    return (await start(actor, { peerId: input.peerId, skillId: input.skillId, message })).done;
  }

  /**
   * Answers a remote pause (from this side's human or agent). The answer is stored locally first,
   * so of two local answers exactly one goes to the peer. Resolves once the peer took it (its
   * first event after the answer is stored here), with the stored answer's sequence number and,
   * as `done`, the rest of the run; rejects when the peer refused the answer (the run waits for a
   * better one) or could not be reached (the run failed with the reason).
   */
  async function answer(runId: string, given: Answer, by?: RunActor): Promise<{ answerSeq: number; done: Promise<RunView> }> {
    const run = await deps.runs.get(runId);
    if (!run?.remote) throw new DomainError('NOT_FOUND', 'No remote task for this run');
    const { taskId } = await remotePosition(run);
    if (!taskId) throw new DomainError('NOT_FOUND', 'No remote task for this run');
    if (run.state !== 'input-required' || !run.interrupt) throw new DomainError('CONFLICT', `The remote task is ${run.state}, not waiting for input`);
    const interrupt = run.interrupt;
    // A peer's own pause is checked here (its screen is ours): an answer it cannot take is not sent.
    if (interrupt.peer && !screenValidator(interrupt.schema)(given.values)) throw new DomainError('VALIDATION_FAILED', "The answer does not match the peer's question");
    const leased = await deps.leases.adopt(runId);
    const generation = Math.max(leased, run.tail.generation) + 1;
    const pausedAt = run.tail.seq;
    const tail = await deps.eventLog.append(runId, { type: 'status', status: { state: 'working', timestamp: new Date().toISOString() }, final: false, answer: { ...given, stepId: interrupt.stepId, stepIndex: run.progress.stepIndex, ...(by ? { by } : {}) } }, {
      generation,
      expect: (at) => {
        if (at.seq !== pausedAt || at.state !== 'input-required') throw new DomainError('CONFLICT', `The remote task is ${at.state}, not waiting for input: it took another answer`);
      },
    });
    await deps.leases.claim(runId, generation);
    // On the peer's task (its context is the task's: none is named, so none can disagree).
    const message: RunMessage = { id: randomUUID(), role: 'user', runId: taskId, parts: answerParts(interrupt, given) };
    let taken = () => {};
    const peerTookIt = new Promise<void>((resolve) => (taken = resolve));
    const done = pump(run, generation, run.remote.peerId, deps.client.stream(run.remote.peerId, { message }), { tail, taskId, onEvent: () => taken() }).catch(async (error: unknown) => {
      // An answer the remote screen refused leaves the run waiting for a better one; any other
      // failure ends the local run with the reason, as a failed start does.
      if (isRefusedAnswer(error)) await deps.eventLog.append(runId, { type: 'status', status: run.status, final: true, interrupt }, { fence: generation }).catch(() => undefined);
      else if (isEndedThere(error)) {
        // The peer's task ended while it waited here (canceled there): this run ends the same way.
        await deps.eventLog.append(runId, canceledStatus('Canceled on the peer: it takes no more answers', { peerId: run.remote!.peerId, taskId }), { fence: generation }).catch(() => undefined);
        throw new DomainError('CONFLICT', 'The task was canceled on the peer: it takes no more answers');
      } else await failLocally(run, error);
      throw error;
    });
    // A refusal (or a failure) before the peer's first event rejects here; a stream that ends
    // without any event resolves here too, with `done`.
    await Promise.race([peerTookIt, done]);
    return { answerSeq: tail.seq, done };
  }

  /** Answers a remote pause and follows the rest of the run until it completes, fails or pauses again. */
  async function resume(runId: string, given: Answer): Promise<RunView> {
    return (await answer(runId, given)).done;
  }

  /**
   * Cancels a remote run: CancelTask to the peer, then the local run ends canceled (a follower
   * still reading the peer's stream stops at its next write). A peer whose task ended already is
   * not-cancelable there: the follower stores that ending, unless the run is paused (nothing
   * follows it), which ends canceled here too.
   */
  async function cancel(runId: string): Promise<RunView> {
    const run = await deps.runs.get(runId);
    if (!run?.remote) throw new DomainError('NOT_FOUND', 'No remote task for this run');
    if (isTerminal(run.state)) throw new DomainError('TASK_NOT_CANCELABLE', `The task is already ${run.state}`);
    const { taskId } = await remotePosition(run);
    if (taskId) {
      try {
        await deps.client.cancel(run.remote.peerId, taskId);
      } catch (error) {
        if (!isEndedThere(error)) throw error;
        if (run.state !== 'input-required') throw new DomainError('TASK_NOT_CANCELABLE', 'The task has ended on the peer');
      }
    }
    try {
      await deps.eventLog.append(runId, canceledStatus('Canceled', { peerId: run.remote.peerId, taskId }));
    } catch (error) {
      if (!(error instanceof RunEndedError)) throw error;
      // The peer's stream brought the cancel first: the same ending.
      if (error.state !== 'canceled') throw new DomainError('TASK_NOT_CANCELABLE', `The task is already ${error.state}`);
    }
    return (await deps.runs.get(runId))!;
  }

  /**
   * A paused remote run as the peer has it now: nothing follows a paused task, so a cancel there
   * is seen here only when asked. Stores the peer's ending (canceled) when its task ended; the
   * run as it stands otherwise, and when the peer cannot be asked.
   */
  async function refresh(run: RunView): Promise<RunView> {
    if (!run.remote || run.state !== 'input-required' || following.has(run.id)) return run;
    const { taskId } = await remotePosition(run);
    if (!taskId) return run;
    const ended = await deps.client.getTask(run.remote.peerId, taskId).then(
      (task) => isTerminal(task.status.state),
      (error: unknown) => {
        if (isEndedThere(error)) return true;
        deps.logger.warn('could not read a paused remote task', { runId: run.id, error });
        return false;
      },
    );
    if (!ended) return run;
    const pausedAt = run.tail.seq;
    await deps.eventLog
      .append(run.id, canceledStatus('Canceled on the peer', { peerId: run.remote.peerId, taskId }), {
        expect: (at) => {
          if (at.seq !== pausedAt) throw new MovedOnError();
        },
      })
      .catch((error: unknown) => {
        // An answer or a cancel here came first: that stands.
        if (!(error instanceof MovedOnError || error instanceof RunEndedError)) throw error;
      });
    return (await deps.runs.get(run.id))!;
  }

  async function failLocally(run: RunView, error: unknown) {
    const text = error instanceof DomainError ? error.message : 'The remote call failed';
    deps.logger.warn('remote call failed', { runId: run.id, error });
    await deps.eventLog
      .append(run.id, { type: 'status', final: true, status: { state: 'failed', timestamp: new Date().toISOString(), message: { id: randomUUID(), role: 'agent', parts: [{ type: 'text', text }] } } })
      .catch((failure: unknown) => {
        if (!(failure instanceof RunEndedError)) throw failure;
      });
  }

  return { start, call, answer, resume, cancel, refresh, recoverOrphans, isRemote: (run: Pick<RunView, 'remote'>) => !!run.remote };
}

/**
 * An answer as the peer takes it: to this project's INTERRUPT, `{ resume: { screenId, values } }`;
 * to another agent's own pause, what its SDK reads: the text (a question asked in words), or the
 * form's values as a data part beside them as text.
 */
function answerParts(interrupt: Interrupt, given: Answer): RunPart[] {
  if (interrupt.peer === 'text') return [{ type: 'text', text: String(given.values.text ?? '') }];
  if (interrupt.peer === 'form') return [{ type: 'data', data: given.values }, { type: 'text', text: JSON.stringify(given.values) }];
  return [{ type: 'data', data: { resume: given } }];
}

/** The remote side answered the resume with "invalid params": the answer, not the run, was wrong. */
function isRefusedAnswer(error: unknown): boolean {
  return error instanceof DomainError && (error.code === 'VALIDATION_FAILED' || (error.details as { code?: number } | undefined)?.code === -32602);
}

/** The local run moved on (answered or ended) while its peer was asked. */
class MovedOnError extends Error {}

/**
 * The peer refused because its task is no longer there to act on: ended (-32004 for a message to
 * a finished task, -32002 not cancelable) or gone (-32001).
 */
function isEndedThere(error: unknown): boolean {
  const code = error instanceof DomainError ? (error.details as { code?: number } | undefined)?.code : undefined;
  return code === -32004 || code === -32002 || code === -32001;
}

/** The final canceled status of a remote run, said in words, marked as the peer's task's. */
function canceledStatus(text: string, remote: { peerId: string; taskId: string | null }): RunEvent {
  return {
    type: 'status',
    final: true,
    status: { state: 'canceled', timestamp: new Date().toISOString(), message: { id: randomUUID(), role: 'agent', parts: [{ type: 'text', text }] } },
    metadata: { remote: { ...remote, eventId: null } },
  };
}

/** The remote event as a local one; `metadata.remote` records where in the remote stream it came from. */
function localize(event: RunEvent, origin: RemoteOrigin): RunEvent {
  if (event.type === 'status' || event.type === 'artifact' || event.type === 'message') return { ...event, metadata: { ...(event.metadata ?? {}), remote: origin } };
  return event;
}

export type RemoteBridge = ReturnType<typeof createRemoteBridge>;
