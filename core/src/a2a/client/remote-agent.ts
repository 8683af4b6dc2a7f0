import { randomUUID } from 'node:crypto';
import { DomainError } from '../../errors/index.ts';
import { reportedUsage, textOf, type RemoteAnswer } from '../../runs/index.ts';
import type { A2aClient } from './a2a-client.ts';
import type { RemotePeers } from './peers.ts';

/**
 * A sub-agent call to an agent this instance does not have: the first registered peer whose
 * AgentCard offers it runs it with `message/send`; the answer is the task's artifact text.
 * Null when no peer offers the agent. `idempotencyKey` (the step's key) is sent as the message
 * id and the Idempotency-Key header, so a step run again after a crash gets the task its first
 * try started instead of starting a second one. The answer names the peer and its task, and the
 * usage the peer reported for it.
 */
export async function callRemoteAgent(deps: { peers: RemotePeers; client: A2aClient }, agent: string, input: string, options: { idempotencyKey?: string } = {}): Promise<RemoteAnswer | null> {
  for (const peer of await deps.peers.list()) {
    const card = await deps.client.card(peer.id).catch(() => null);
    if (!card?.skills.some((skill) => skill.id === agent)) continue;
    const reply = await deps.client.send(peer.id, { message: { id: options.idempotencyKey ?? randomUUID(), role: 'user', parts: [{ type: 'text', text: input }], metadata: { skillId: agent } } }, options);
    if (reply.kind === 'message') return { output: textOf(reply.message) };
    if (reply.status.state !== 'completed') {
      throw new DomainError('UPSTREAM_FAILED', `${agent} on ${peer.name} ended ${reply.status.state}; only agents that answer without asking can be called as a step`);
    }
    const usage = reportedUsage(reply.metadata?.usage);
    return { output: reply.artifacts.map((artifact) => textOf(artifact)).join('\n'), remote: { peerId: peer.id, taskId: reply.id, ...(usage ? { usage } : {}) } };
  }
  return null;
}

/** The first registered peer whose card offers `agent`, with what the card says of it; null when none does (or none answers). */
export async function peerAgentOf(deps: { peers: RemotePeers; client: A2aClient }, agent: string): Promise<{ peerName: string; name: string; description: string } | null> {
  for (const peer of await deps.peers.list()) {
    const card = await deps.client.card(peer.id).catch(() => null);
    const skill = card?.skills.find((entry) => entry.id === agent);
    if (skill) return { peerName: peer.name, name: skill.name || agent, description: skill.description || '' };
  }
  return null;
}
