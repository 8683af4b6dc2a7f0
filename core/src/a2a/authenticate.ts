import type { AgentAccessActor } from '../auth/index.ts';
import { DomainError, toDomainError } from '../errors/index.ts';

/**
 * The caller of an A2A request (every binding) from its bearer token. No token, or one that does
 * not verify, is UNAUTHENTICATED with a message safe to show (the verifier's own for a token it
 * refused, a generic one otherwise). A token that cannot be checked now (the database is down) is
 * not an invalid one: DEPENDENCY_UNAVAILABLE passes through, so the client retries with the same token.
 */
export async function authenticateBearer(verifyToken: (token: string) => Promise<AgentAccessActor>, token: string | null, where = 'the Authorization header'): Promise<AgentAccessActor> {
  if (!token) throw new DomainError('UNAUTHENTICATED', `A bearer access token is required: Bearer <token> in ${where}`);
  try {
    return await verifyToken(token);
  } catch (error) {
    if (toDomainError(error).code === 'DEPENDENCY_UNAVAILABLE') throw error;
    throw new DomainError('UNAUTHENTICATED', error instanceof DomainError && error.code === 'UNAUTHENTICATED' ? error.message : 'Invalid or expired access token');
  }
}
