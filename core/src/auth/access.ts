import type { A2aPermission } from '../db/index.ts';
import { DomainError } from '../errors/index.ts';
import type { Actor } from './actor.ts';

/** What an actor may do with an agent; for OAuth clients, the grants their token resolved to. */
export type AgentAccessActor = Actor & { grants?: { allowedAgents: string[]; permissions: A2aPermission[]; allowedPrimitives?: string[] } };

export const ACCESS_DENIED = 'You do not have access to this agent';

type Grants = NonNullable<AgentAccessActor['grants']>;

/**
 * The shape of every access decision here: admins (UI) and the service's own workers may do
 * anything, an OAuth client what `granted` finds in its grants, anyone else nothing.
 */
export function mayActorDo(actor: AgentAccessActor, granted: (grants: Grants) => boolean): boolean {
  switch (actor.type) {
    case 'ui':
      return actor.role === 'admin';
    case 'worker':
      return true;
    case 'a2a':
      return !!actor.grants && granted(actor.grants);
    default:
      return false;
  }
}

/**
 * The one run-access check, for the UI and for inbound A2A alike. A denial is the same error
 * whoever asks.
 */
export function mayAccessAgent(actor: AgentAccessActor, agent: string, permission: A2aPermission): boolean {
  return mayActorDo(actor, (grants) => grants.permissions.includes(permission) && (grants.allowedAgents.includes('*') || grants.allowedAgents.includes(agent)));
}

export function assertAgentAccess(actor: AgentAccessActor, agent: string, permission: A2aPermission): void {
  if (!mayAccessAgent(actor, agent, permission)) throw new DomainError('FORBIDDEN', ACCESS_DENIED);
}

/** A run is visible to admins and to the actor that started it; to others it does not exist. */
export function mayAccessRun(actor: AgentAccessActor, run: { agent: string; actorId: string }, permission: A2aPermission): boolean {
  if (!mayAccessAgent(actor, run.agent, permission)) return false;
  return actor.type === 'ui' || actor.type === 'worker' || run.actorId === actor.id;
}
