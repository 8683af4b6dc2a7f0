import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase, type Database } from '../db/index.ts';
import type { Services } from '../index.ts';
import { testServices, useTestDatabase } from '../testing/index.ts';
import { SIGN_IN_LIMITS } from './index.ts';

/**
 * Two web processes on one database (two connections, two service instances): the sign-in and
 * token limits hold for both together, not once per process (issue 28, item 3; ADR 0030).
 */
const t = useTestDatabase();
let second: Database;
let one: Services;
let two: Services;
const admin = { type: 'ui', id: 'admin', email: 'a@x.test', role: 'admin' } as const;

beforeAll(async () => {
  second = await connectDatabase(t.uri);
  // Same secrets in both, as every instance of one deployment has them.
  const secrets = { SERVICE_MASTER_KEY: randomBytes(32).toString('base64'), SERVICE_SESSION_SECRET: randomBytes(32).toString('base64url'), SERVICE_BRIDGE_TOKEN: randomBytes(32).toString('base64url') };
  one = testServices(t.db, secrets);
  two = testServices(second, secrets);
});
afterAll(() => second?.close());

const codeOf = (attempt: Promise<unknown>) => attempt.then(() => 'ok', (error: { code?: string }) => error.code ?? 'error');

function tokenRequest(clientId: string, clientSecret: string) {
  return new Request('http://127.0.0.1:3999/api/oauth/token', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}` },
    body: new URLSearchParams({ grant_type: 'client_credentials' }),
  });
}

describe('rate limits shared by every process on the database', () => {
  it('refuses an address guessing one account after 5 failures spread over two processes', async () => {
    const codes: string[] = [];
    for (let i = 0; i < SIGN_IN_LIMITS.pair.failures + 2; i++) {
      const services = i % 2 ? two : one;
      codes.push(await codeOf(services.signIn.attempt({ email: 'spread@example.com', password: `wrong password ${i}`, address: '203.0.113.50' })));
    }
    expect(codes).toEqual([...Array(SIGN_IN_LIMITS.pair.failures).fill('UNAUTHENTICATED'), 'RATE_LIMITED', 'RATE_LIMITED']);
  });

  it('lets a concurrent burst over two processes through no more than the limit', async () => {
    const burst = Array.from({ length: 12 }, (_, i) => codeOf((i % 2 ? two : one).signIn.attempt({ email: 'burst-two@example.com', password: 'a wrong password', address: '198.51.100.50' })));
    const codes = await Promise.all(burst);
    expect(codes.filter((c) => c === 'UNAUTHENTICATED')).toHaveLength(SIGN_IN_LIMITS.pair.failures);
    expect(codes.filter((c) => c === 'RATE_LIMITED')).toHaveLength(12 - SIGN_IN_LIMITS.pair.failures);
  });

  it('gives a client 30 token requests a minute across two processes, not 30 on each', async () => {
    const { client, clientSecret } = await one.oauth.clients.register(admin, { name: 'spread', allowedAgents: ['*'], permissions: ['list'] });
    const statuses: number[] = [];
    for (let i = 0; i < 32; i++) statuses.push((await (i % 2 ? two : one).handlers.oauthToken(tokenRequest(client.clientId, clientSecret))).status);
    expect(statuses.slice(0, 30).every((s) => s === 200)).toBe(true);
    expect(statuses.slice(30)).toEqual([429, 429]);
  });
});
