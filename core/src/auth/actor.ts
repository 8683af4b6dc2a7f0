import type { UserRole } from '../db/index.ts';

/** Who is acting. Passed explicitly to every server action; never read from ambient state. */
export type Actor = UiActor | RouteActor | WorkerActor | A2aActor;

export interface UiActor {
  type: 'ui';
  id: string;
  email: string;
  role: UserRole;
}

/** A route authenticated by something other than a session (a widget key, a bridge token). */
export interface RouteActor {
  type: 'route';
  id: string;
  route: string;
}

export interface WorkerActor {
  type: 'worker';
  id: string;
  job: string;
}

/** An OAuth client calling in over A2A or MCP. */
export interface A2aActor {
  type: 'a2a';
  id: string;
  clientId: string;
}

export function isAdmin(actor: Actor | null | undefined): actor is UiActor & { role: 'admin' } {
  return actor?.type === 'ui' && actor.role === 'admin';
}

export const systemActor = (job: string): WorkerActor => ({ type: 'worker', id: `worker:${job}`, job });
