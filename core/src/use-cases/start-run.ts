import { randomUUID } from 'node:crypto';
import type { RemoteBridge } from '../a2a/client/index.ts';
import { assertAgentAccess, isAdmin, type AgentAccessActor } from '../auth/index.ts';
import { DomainError } from '../errors/index.ts';
import type { RunExecutor, RunMessage, RunStore, RunView, StoredEvent } from '../runs/index.ts';

export interface StartRunInput {
  /** The agent's skill id (its npm package name). */
  agent: string;
  /** What the run starts with. */
  message: RunMessage;
  /** A registered peer to run the agent on (admins only); absent runs it here. */
  peerId?: string | undefined;
  /** The caller's Idempotency-Key (A2A): a retry gets the run it started. For runs here. */
  idempotencyKey?: string | null;
}

export interface StartedRun {
  run: RunView;
  /** False when the key or message id named a run this caller had started already. */
  created: boolean;
  /**
   * Resolves to the run as it completed in this process, or to null when it paused, failed or
   * is followed elsewhere (how it went is on the run). Null itself when nothing was started now
   * (a retry of a run already started).
   */
  execution: Promise<RunView | null> | null;
  /** The run's first events as stored (from seq 1), when this call created it; none otherwise. */
  events: StoredEvent[];
}

export interface StartRunDeps {
  /** The agents published on this host. */
  card: () => Promise<{ skills: { id: string }[] }>;
  runs: Pick<RunStore, 'create'>;
  executor: Pick<RunExecutor, 'start'>;
  remote: Pick<RemoteBridge, 'start'>;
}

/** A user message of plain text, as a form sends it. */
export function textMessage(text: string): RunMessage {
  return { id: randomUUID(), role: 'user', parts: [{ type: 'text', text }] };
}

/**
 * Starting a run, the one way: the admin UI (tRPC) and inbound A2A both call this. A run here is
 * stored already working and started in this process; a run on a peer is a local run that
 * follows the peer's stream. Answers once the run is stored, not when it ends.
 */
export function createStartRun(deps: StartRunDeps) {
  return async function startRun(actor: AgentAccessActor, input: StartRunInput): Promise<StartedRun> {
    if (input.peerId) {
      if (!isAdmin(actor)) throw new DomainError('FORBIDDEN', 'Only an admin may run an agent on a peer');
      const { run, done } = await deps.remote.start(actor, { peerId: input.peerId, skillId: input.agent, message: input.message });
      // A failed remote run is recorded on the local run by the bridge.
      return { run, created: true, execution: done.catch(() => null), events: [] };
    }
    assertAgentAccess(actor, input.agent, 'execute');
    if (!(await deps.card()).skills.some((skill) => skill.id === input.agent)) throw new DomainError('NOT_FOUND', `No agent ${input.agent} on this host`);
    const { run, created, events } = await deps.runs.create(actor, { agent: input.agent, message: input.message, idempotencyKey: input.idempotencyKey ?? null, working: true });
    if (!created) return { run, created, execution: null, events };
    return { run, created, execution: deps.executor.start(run.id, run), events };
  };
}

export type StartRun = ReturnType<typeof createStartRun>;
