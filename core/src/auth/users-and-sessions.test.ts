import { describe, expect, it } from 'vitest';
import { useTestDatabase } from '../testing/index.ts';
import { createSessionStore, createUserStore, INVALID_CREDENTIALS } from './index.ts';

const t = useTestDatabase();

describe('users and sessions', () => {
  it('wrong password and unknown user fail with the same error', async () => {
    const users = createUserStore(t.db.models);
    await users.create({ email: 'root@example.com', password: 'correct horse battery', role: 'admin' });
    const wrong = await users.verifyCredentials('root@example.com', 'wrong password!!').catch((e: unknown) => e);
    const unknown = await users.verifyCredentials('nobody@example.com', 'correct horse battery').catch((e: unknown) => e);
    expect(wrong).toMatchObject({ code: 'UNAUTHENTICATED', message: INVALID_CREDENTIALS });
    expect(unknown).toMatchObject({ code: 'UNAUTHENTICATED', message: INVALID_CREDENTIALS });
    await expect(users.verifyCredentials('ROOT@example.com', 'correct horse battery')).resolves.toMatchObject({ type: 'ui', role: 'admin' });
  });

  it('stores only a scrypt hash', async () => {
    const users = createUserStore(t.db.models);
    const actor = await users.create({ email: 'hash@example.com', password: 'a long enough password', role: 'member' });
    const row = await t.db.models.User.findById(actor.id).lean();
    expect(row?.passwordHash).toMatch(/^scrypt\$65536\$8\$1\$/);
    expect(row?.passwordHash).not.toContain('a long enough password');
  });

  it('sessions are stored by hash, expire, and end on destroy', async () => {
    const users = createUserStore(t.db.models);
    const actor = await users.create({ email: 'sess@example.com', password: 'a long enough password', role: 'admin' });
    let clock = new Date('2030-01-01T00:00:00Z');
    const sessions = createSessionStore(t.db.models, users, () => clock);
    const { sessionId } = await sessions.create(actor);
    expect(await t.db.models.Session.exists({ _id: sessionId })).toBeNull();
    await expect(sessions.resolve(sessionId)).resolves.toMatchObject({ id: actor.id, email: 'sess@example.com' });

    await sessions.destroy(sessionId);
    await expect(sessions.resolve(sessionId)).resolves.toBeNull();

    const second = await sessions.create(actor);
    clock = new Date('2030-02-01T00:00:00Z');
    await expect(sessions.resolve(second.sessionId)).resolves.toBeNull();
  });
});
