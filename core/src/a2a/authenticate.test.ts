import { describe, expect, it } from 'vitest';
import type { AgentAccessActor } from '../auth/index.ts';
import { DomainError } from '../errors/index.ts';
import { authenticateBearer } from './authenticate.ts';

const client = { type: 'client', id: 'c1' } as unknown as AgentAccessActor;

describe('authenticateBearer (every A2A binding)', () => {
  it('gives the verified caller, and UNAUTHENTICATED for none or a bad token, never the verifier\'s internals', async () => {
    expect(await authenticateBearer(async () => client, 'token')).toBe(client);
    await expect(authenticateBearer(async () => client, null, 'the call metadata')).rejects.toMatchObject({ code: 'UNAUTHENTICATED', message: expect.stringContaining('the call metadata') });
    await expect(authenticateBearer(() => Promise.reject(new DomainError('UNAUTHENTICATED', 'Token expired')), 'old')).rejects.toMatchObject({ code: 'UNAUTHENTICATED', message: 'Token expired' });
    await expect(authenticateBearer(() => Promise.reject(new Error('jose: JWSSignatureVerificationFailed at key 7')), 'forged')).rejects.toMatchObject({ code: 'UNAUTHENTICATED', message: 'Invalid or expired access token' });
  });

  it('lets a database outage through: a token that cannot be checked now is not an invalid one', async () => {
    const outage = new DomainError('DEPENDENCY_UNAVAILABLE', 'The database is unavailable; try again shortly');
    await expect(authenticateBearer(() => Promise.reject(outage), 'token')).rejects.toBe(outage);
  });
});
