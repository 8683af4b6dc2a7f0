import { randomUUID } from 'node:crypto';
import { DomainError } from '../../errors/index.ts';
import type { A2aClient } from './a2a-client.ts';
import type { RemotePeers } from './peers.ts';

/**
 * A sub-agent call to an agent this instance does not have: the first registered peer whose
 * AgentCard offers it runs it with `message/send`; the answer is the task's artifact text.
 * Null when no peer offers the agent.
 */
export async function callRemoteAgent(deps: { peers: RemotePeers; client: A2aClient }, agent: string, input: string): Promise<string | null> {
  for (const peer of await deps.peers.list()) {
    const card = await deps.client.card(peer.id).catch(() => null);
    if (!card?.skills.some((skill) => skill.id === agent)) continue;
    const reply = await deps.client.send(peer.id, {
      message: { kind: 'message', messageId: randomUUID(), role: 'user', parts: [{ kind: 'text', text: input }], metadata: { skillId: agent } },
    });
    if (reply.kind === 'message') return reply.parts.flatMap((p) => (p.kind === 'text' ? [p.text] : [])).join('\n');
    if (reply.status.state !== 'completed') {
      throw new DomainError('UPSTREAM_FAILED', `${agent} on ${peer.name} ended ${reply.status.state}; only agents that answer without asking can be called as a step`);
    }
    return (reply.artifacts ?? []).flatMap((a) => a.parts.flatMap((p) => (p.kind === 'text' ? [p.text] : []))).join('\n');
  }
  return null;
}
