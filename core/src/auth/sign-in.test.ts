import { describe, expect, it } from 'vitest';
import { createAuditLog } from '../audit/index.ts';
import { createMemoryLogger } from '../log/index.ts';
import { useTestDatabase } from '../testing/index.ts';
import { createWindowCounters } from '../db/index.ts';
import { createSessionStore, createSignIn, createSignInThrottle, createUserStore, SIGN_IN_FAILED_ACTION, SIGN_IN_LIMITS } from './index.ts';

const t = useTestDatabase();
const throttle = () => createSignInThrottle({ counters: createWindowCounters(t.db.models) });

const PASSWORD = 'correct horse battery';

describe('sign-in throttling (issue 11, item 8; issue 25)', () => {
  /** A sign-in whose slowdowns are recorded instead of waited out. */
  const recordingSignIn = () => {
    const waits: number[] = [];
    const signIn = createSignIn({ users: createUserStore(t.db.models), audit: createAuditLog(t.db.models, createMemoryLogger()), throttle: throttle(), wait: async (ms) => void waits.push(ms) });
    return { signIn, waits };
  };

  it('signs in with the right password from an address that has not been guessing, after five wrong ones from another', async () => {
    await createUserStore(t.db.models).create({ email: 'unlockable@example.com', password: PASSWORD, role: 'admin' });
    const { signIn, waits } = recordingSignIn();
    for (let i = 0; i < 5; i++) {
      await expect(signIn.attempt({ email: 'unlockable@example.com', password: `wrong password ${i}`, address: '203.0.113.1' })).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    }
    await expect(signIn.attempt({ email: 'unlockable@example.com', password: PASSWORD, address: '203.0.113.2' })).resolves.toMatchObject({ email: 'unlockable@example.com' });
    expect(waits).toEqual([SIGN_IN_LIMITS.account.firstDelayMs]);
  });

  it('however many addresses guess at an account, its owner signs in from another after at most the longest slowdown', async () => {
    await createUserStore(t.db.models).create({ email: 'besieged@example.com', password: PASSWORD, role: 'admin' });
    const { signIn, waits } = recordingSignIn();
    for (let from = 0; from < 4; from++) {
      for (let i = 0; i < SIGN_IN_LIMITS.pair.failures; i++) {
        await expect(signIn.attempt({ email: 'besieged@example.com', password: 'a wrong password', address: `203.0.113.${10 + from}` })).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
      }
    }
    await expect(signIn.attempt({ email: 'besieged@example.com', password: PASSWORD, address: '203.0.113.99' })).resolves.toMatchObject({ email: 'besieged@example.com' });
    expect(waits.at(-1)).toBe(SIGN_IN_LIMITS.account.maxDelayMs);
    expect(Math.max(...waits)).toBeLessThanOrEqual(2000);
  });

  it('refuses an address after 5 failures for one account, even with the right password, and audits every failure without the password', async () => {
    await createUserStore(t.db.models).create({ email: 'throttled@example.com', password: PASSWORD, role: 'admin' });
    const audit = createAuditLog(t.db.models, createMemoryLogger());
    const signIn = createSignIn({ users: createUserStore(t.db.models), audit, throttle: throttle(), wait: async () => {} });
    for (let i = 0; i < SIGN_IN_LIMITS.pair.failures; i++) {
      await expect(signIn.attempt({ email: 'Throttled@example.com', password: `wrong password ${i}`, address: '10.0.0.1' })).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    }
    const refused = await signIn.attempt({ email: 'throttled@example.com', password: PASSWORD, address: '10.0.0.1' }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'RATE_LIMITED', httpStatus: 429 });
    expect((refused as Error).message).toMatch(/^Too many failed sign-in attempts\. Wait 15 minutes and try again\.$/);
    expect((refused as { details: { retryAfterSeconds: number } }).details.retryAfterSeconds).toBeGreaterThan(14 * 60);

    await audit.flush();
    const rows = await t.db.models.AuditEvent.find({ action: SIGN_IN_FAILED_ACTION, resourceId: 'throttled@example.com' }).lean();
    expect(rows.filter((r) => (r.details as { reason: string }).reason === 'invalid_credentials')).toHaveLength(5);
    expect(rows.filter((r) => (r.details as { reason: string }).reason === 'throttled').map((r) => r.details)).toEqual([{ address: '10.0.0.1', reason: 'throttled', scope: 'pair' }]);
    expect(JSON.stringify(rows)).not.toMatch(/wrong password|correct horse/);
    expect(rows[0]).toMatchObject({ actorType: 'route', resourceType: 'user', details: { address: '10.0.0.1' } });
  });

  it('refuses a client address after 20 failures across accounts, and only that address', async () => {
    await createUserStore(t.db.models).create({ email: 'addr@example.com', password: PASSWORD, role: 'admin' });
    const { signIn } = recordingSignIn();
    for (let i = 0; i < SIGN_IN_LIMITS.address.failures; i++) {
      await expect(signIn.attempt({ email: `nobody-${i}@example.com`, password: 'a wrong password', address: '192.0.2.7' })).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    }
    await expect(signIn.attempt({ email: 'addr@example.com', password: PASSWORD, address: '192.0.2.7' })).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    await expect(signIn.attempt({ email: 'addr@example.com', password: PASSWORD, address: '192.0.2.8' })).resolves.toMatchObject({ email: 'addr@example.com' });
  });

  it('counts attempts still in flight, so a concurrent burst cannot pass the limit before the first one fails', async () => {
    const { signIn } = recordingSignIn();
    const results = await Promise.allSettled(Array.from({ length: 12 }, () => signIn.attempt({ email: 'burst@example.com', password: 'a wrong password', address: '198.51.100.1' })));
    const codes = results.map((r) => (r.status === 'rejected' ? (r.reason as { code: string }).code : 'ok'));
    expect(codes.filter((c) => c === 'UNAUTHENTICATED')).toHaveLength(SIGN_IN_LIMITS.pair.failures);
    expect(codes.filter((c) => c === 'RATE_LIMITED')).toHaveLength(12 - SIGN_IN_LIMITS.pair.failures);
  });
});

describe('a database outage is not "signed out" (issue 11, item 13)', () => {
  it('findActor and resolve answer DEPENDENCY_UNAVAILABLE when the users read fails, null only for an unknown user', async () => {
    const users = createUserStore(t.db.models);
    const actor = await users.create({ email: 'outage@example.com', password: PASSWORD, role: 'admin' });
    const sessions = createSessionStore(t.db.models, users);
    const { sessionId } = await sessions.create(actor);
    await expect(users.findActor('000000000000000000000000')).resolves.toBeNull();
    await expect(users.findActor('not an id')).resolves.toBeNull();

    const findById = t.db.models.User.findById;
    const failing = () => ({ lean: () => Promise.reject(Object.assign(new Error('connection <monitor> to 127.0.0.1:27017 closed'), { name: 'MongoNetworkError' })) });
    (t.db.models.User as unknown as { findById: unknown }).findById = failing;
    try {
      await expect(users.findActor(actor.id)).rejects.toMatchObject({ code: 'DEPENDENCY_UNAVAILABLE', httpStatus: 503 });
      await expect(sessions.resolve(sessionId)).rejects.toMatchObject({ code: 'DEPENDENCY_UNAVAILABLE' });
    } finally {
      (t.db.models.User as unknown as { findById: unknown }).findById = findById;
    }
    await expect(sessions.resolve(sessionId)).resolves.toMatchObject({ id: actor.id });
  });
});
