export { isAdmin, systemActor, type Actor, type UiActor, type RouteActor, type WorkerActor, type A2aActor } from './actor.ts';
export { hashPassword, verifyPassword, scryptLoad, MIN_PASSWORD_LENGTH, assertPasswordPolicy, generatePassword, SCRYPT_CONCURRENCY, SCRYPT_MAX_WAITING, SCRYPT_MAX_WAIT_MS } from './passwords.ts';
export { createUserStore, databaseUnavailable, INVALID_CREDENTIALS, type UserStore } from './users.ts';
export { createSignIn, SIGN_IN_FAILED_ACTION, type SignIn } from './sign-in.ts';
export { createSignInThrottle, SIGN_IN_LIMITS, type SignInLimits, type SignInThrottle, type SlowdownLimit, type ThrottleDecision, type ThrottleLimit } from './sign-in-throttle.ts';
export { createSessionStore, SESSION_TTL_MS, type SessionStore, type SessionSummary } from './sessions.ts';
export { createAccounts, LAST_ADMIN, USERS_CLAIM, USERS_CLAIM_STALE_MS, type Accounts, type UserPage, type UserSummary } from './accounts.ts';
export { createActorNames, type ActorNames } from './actor-names.ts';
export type { AuditTrail } from './audit-trail.ts';
export { mayActorDo, mayAccessAgent, assertAgentAccess, mayAccessRun, ACCESS_DENIED, type AgentAccessActor } from './access.ts';
/** The grants an A2A client may hold. */
export type { A2aPermission } from '../db/index.ts';
