export { isAdmin, systemActor, type Actor, type UiActor, type RouteActor, type WorkerActor, type A2aActor } from './actor.ts';
export { hashPassword, verifyPassword, MIN_PASSWORD_LENGTH } from './passwords.ts';
export { createUserStore, INVALID_CREDENTIALS, type UserStore } from './users.ts';
export { createSessionStore, SESSION_TTL_MS, type SessionStore } from './sessions.ts';
export { mayActorDo, mayAccessAgent, assertAgentAccess, mayAccessRun, ACCESS_DENIED, type AgentAccessActor } from './access.ts';
