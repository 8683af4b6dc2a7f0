import { randomUUID } from 'node:crypto';
import type { Actor } from '../../auth/index.ts';
import { DomainError } from '../../errors/index.ts';
import type { Logger } from '../../log/index.ts';
import type { EventLog, RunLeases, RunStore, RunView } from '../../runs/index.ts';
import type { A2aEvent, Message, ResumePayload } from '../protocol.ts';
import type { A2aClient, RemoteEvent } from './a2a-client.ts';

/** A remote stream opens with its Task as event 1; with nothing else stored, resume after it. */
const REMOTE_TASK_EVENT_ID = 1;

interface RemoteLink {
  peerId: string;
  skillId: string;
  remoteTaskId: string | null;
  remoteLastEventId: number | null;
}

/**
 * Runs a remote agent as a local run: every remote event is appended to the local run's event
 * log (ids rewritten to the local task, the remote ones kept in metadata), so the local UI and
 * local subscribers only ever read the local stream. A remote `input-required` lands locally as
 * the same INTERRUPT; `resume` answers it on the remote side.
 */
export function createRemoteBridge(deps: { client: A2aClient; runs: RunStore; eventLog: EventLog; leases: RunLeases; logger: Logger }) {
  const linkOf = (run: RunView) => (run.progress as { remote?: RemoteLink }).remote;
  const following = new Set<string>();

  /**
   * Appends the remote events to the local log while holding the local run's lease, saving the
   * remote Last-Event-ID after each, so another process can take over if this one dies.
   */
  async function pump(run: RunView, link: RemoteLink, events: AsyncGenerator<RemoteEvent>): Promise<RunView> {
    let lost = false;
    const release = await deps.leases.hold(run.id, () => (lost = true));
    if (!release) throw new DomainError('CONFLICT', 'Another process is following this remote run');
    following.add(run.id);
    try {
      for await (const { id, event } of events) {
        // Another process took the run over (this one stalled past its lease): it follows on.
        if (lost) break;
        if (link.remoteTaskId === null) link.remoteTaskId = remoteTaskIdOf(event);
        link.remoteLastEventId = id;
        // The task snapshot that opens a remote stream is already in the local log as our own Task.
        if (event.kind !== 'task') await deps.eventLog.append(run.id, localize(event, run, link, id));
        await deps.runs.saveProgress(run.id, { ...run.progress, remote: link } as RunView['progress']);
      }
    } finally {
      following.delete(run.id);
      await release();
    }
    return (await deps.runs.get(run.id))!;
  }

  /** Continues following remote runs whose local follower died, from the saved remote Last-Event-ID. */
  async function recoverOrphans(): Promise<string[]> {
    const orphans = (await deps.leases.orphans({ remote: true })).filter((id) => !following.has(id));
    for (const id of orphans) {
      const run = await deps.runs.get(id);
      const link = run && linkOf(run);
      if (!run || !link?.remoteTaskId) continue;
      // Where to resume is read from the local log itself (the last remote event stored), not from
      // the saved progress, which a crash between the two writes could leave one event behind.
      const [last] = await deps.eventLog.readAfter(run.id, run.lastSeq - 1);
      const stored = (last?.event as { metadata?: { remote?: { eventId?: number | null } } } | undefined)?.metadata?.remote?.eventId;
      link.remoteLastEventId = typeof stored === 'number' ? stored : REMOTE_TASK_EVENT_ID;
      deps.logger.info('following a remote run again after a restart', { runId: id, peerId: link.peerId, lastEventId: link.remoteLastEventId });
      const events = deps.client.resubscribe(link.peerId, link.remoteTaskId, { lastEventId: link.remoteLastEventId });
      void pump(run, link, events).catch((error: unknown) => (error instanceof DomainError && error.code === 'CONFLICT' ? undefined : failLocally(run, error)));
    }
    return orphans;
  }

  /**
   * Starts a remote call as a local run: returns the local run at once and, as `done`, the run
   * once the remote side completed, failed or paused.
   */
  async function start(actor: Actor, input: { peerId: string; skillId: string; text: string }): Promise<{ run: RunView; done: Promise<RunView> }> {
    const message: Message = { kind: 'message', messageId: randomUUID(), role: 'user', parts: [{ kind: 'text', text: input.text }], metadata: { skillId: input.skillId } };
    const { run } = await deps.runs.create(actor, { agent: input.skillId, message });
    const link: RemoteLink = { peerId: input.peerId, skillId: input.skillId, remoteTaskId: null, remoteLastEventId: null };
    await deps.runs.saveProgress(run.id, { ...run.progress, remote: link } as RunView['progress']);
    // Reconnects inside one stream resend the same message with Last-Event-ID; the remote side
    // recognises the messageId and replays instead of starting (or resuming) twice.
    const done = pump(run, link, deps.client.stream(link.peerId, { message })).catch(async (error: unknown) => {
      await failLocally(run, error);
      throw error;
    });
    return { run, done };
  }

  /** Starts a remote call and follows it until it completes, fails or pauses. */
  async function call(actor: Actor, input: { peerId: string; skillId: string; text: string }): Promise<RunView> {
    return (await start(actor, input)).done;
  }

  /** Answers a remote INTERRUPT (from this side's human or agent) and follows the rest of the run. */
  async function resume(runId: string, answer: ResumePayload): Promise<RunView> {
    const run = await deps.runs.get(runId);
    const link = run && linkOf(run);
    if (!run || !link?.remoteTaskId) throw new DomainError('NOT_FOUND', 'No remote task for this run');
    if (run.state !== 'input-required') throw new DomainError('CONFLICT', 'The remote task is not waiting for input');
    const message: Message = { kind: 'message', messageId: randomUUID(), role: 'user', taskId: link.remoteTaskId, parts: [{ kind: 'data', data: { resume: answer } }] };
    return pump(run, link, deps.client.stream(link.peerId, { message })).catch(async (error: unknown) => {
      // An answer the remote screen refused leaves the run waiting for a better one; any other
      // failure ends the local run with the reason, as a failed start does.
      if (!isRefusedAnswer(error)) await failLocally(run, error);
      throw error;
    });
  }

  async function failLocally(run: RunView, error: unknown) {
    const current = await deps.runs.get(run.id);
    if (!current || ['completed', 'failed', 'canceled'].includes(current.state)) return;
    const text = error instanceof DomainError ? error.message : 'The remote call failed';
    deps.logger.warn('remote call failed', { runId: run.id, error });
    await deps.eventLog.append(run.id, {
      kind: 'status-update',
      taskId: run.id,
      contextId: run.contextId,
      final: true,
      status: { state: 'failed', timestamp: new Date().toISOString(), message: { kind: 'message', messageId: randomUUID(), role: 'agent', parts: [{ kind: 'text', text }] } },
    });
  }

  return { start, call, resume, recoverOrphans, isRemote: (run: RunView) => !!linkOf(run) };
}

/** The remote side answered the resume with "invalid params": the answer, not the run, was wrong. */
function isRefusedAnswer(error: unknown): boolean {
  return error instanceof DomainError && (error.code === 'VALIDATION_FAILED' || (error.details as { code?: number } | undefined)?.code === -32602);
}

function remoteTaskIdOf(event: A2aEvent): string | null {
  if (event.kind === 'task') return event.id;
  if (event.kind === 'status-update' || event.kind === 'artifact-update') return event.taskId;
  return event.taskId ?? null;
}

/** The remote event as a local one; `metadata.remote.eventId` records where in the remote stream it came from. */
function localize(event: A2aEvent, run: RunView, link: RemoteLink, eventId: number | null): A2aEvent {
  const remote = { peerId: link.peerId, taskId: link.remoteTaskId, eventId };
  if (event.kind === 'status-update' || event.kind === 'artifact-update') {
    const metadata: Record<string, unknown> = { ...(event.metadata ?? {}), remote };
    const interrupt = (event.metadata as { interrupt?: Record<string, unknown> } | undefined)?.interrupt;
    if (interrupt) metadata.interrupt = { ...interrupt, runId: run.id, remoteRunId: interrupt.runId };
    return { ...event, taskId: run.id, contextId: run.contextId, metadata };
  }
  return event;
}

export type RemoteBridge = ReturnType<typeof createRemoteBridge>;
