import { beforeEach, describe, expect, it } from 'vitest';
import { createWindowCounters } from '../db/index.ts';
import { useTestDatabase } from '../testing/index.ts';
import { USERS_CLAIM, USERS_CLAIM_STALE_MS, createAccounts, createSessionStore, createSignIn, createSignInThrottle, createUserStore, SIGN_IN_FAILED_ACTION, LAST_ADMIN, systemActor, type AuditTrail } from './index.ts';

const t = useTestDatabase();

beforeEach(async () => {
  await Promise.all([t.db.models.User.deleteMany({}), t.db.models.Session.deleteMany({}), t.db.models.Claim.deleteMany({}), t.db.models.RateLimitSlot.deleteMany({})]);
});

function setup() {
  const entries: { action: string; details?: Record<string, unknown> }[] = [];
  const audit: AuditTrail = { record: (_actor, entry) => void entries.push(entry) };
  const users = createUserStore(t.db.models);
  const sessions = createSessionStore(t.db.models, users);
  const signIn = createSignIn({ users, audit, throttle: createSignInThrottle({ counters: createWindowCounters(t.db.models) }), wait: async () => undefined });
  const accounts = createAccounts({ models: t.db.models, users, sessions, signIn, audit });
  return { users, sessions, accounts, entries };
}

const PASSWORD = 'a long enough password';

describe('accounts', () => {
  it('keeps one admin when two admins demote each other at the same time', async () => {
    const { users, accounts } = setup();
    const a = await users.create({ email: 'a@example.com', password: PASSWORD, role: 'admin' });
    const b = await users.create({ email: 'b@example.com', password: PASSWORD, role: 'admin' });
    const outcomes = await Promise.allSettled([accounts.setRole(a, b.id, 'member'), accounts.setRole(b, a.id, 'member')]);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    expect(await t.db.models.User.countDocuments({ role: 'admin' })).toBe(1);
    // Whoever lost was demoted first, so they are no admin any more by the time their change runs.
    expect(outcomes.find((o) => o.status === 'rejected')).toMatchObject({ reason: { code: 'FORBIDDEN' } });
  });

  it('keeps one admin when two admins remove each other at the same time', async () => {
    const { users, accounts } = setup();
    const a = await users.create({ email: 'a@example.com', password: PASSWORD, role: 'admin' });
    const b = await users.create({ email: 'b@example.com', password: PASSWORD, role: 'admin' });
    const outcomes = await Promise.allSettled([accounts.remove(a, b.id), accounts.remove(b, a.id)]);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    expect(await t.db.models.User.countDocuments({ role: 'admin' })).toBe(1);
  });

  it('refuses to demote or remove the last admin, and says what to do', async () => {
    const { users, accounts, entries } = setup();
    const admin = await users.create({ email: 'only@example.com', password: PASSWORD, role: 'admin' });
    await expect(accounts.setRole(admin, admin.id, 'member')).rejects.toMatchObject({ code: 'CONFLICT', message: LAST_ADMIN });
    await expect(accounts.remove(admin, admin.id)).rejects.toMatchObject({ code: 'CONFLICT', message: LAST_ADMIN });
    expect(await t.db.models.User.countDocuments({ role: 'admin' })).toBe(1);
    expect(entries).toEqual([]);
    // With a second admin the first may step down; the claim was released each time.
    const { user: second } = await accounts.create(admin, { email: 'second@example.com', role: 'member' });
    await accounts.setRole(admin, second.id, 'admin');
    await expect(accounts.setRole(admin, admin.id, 'member')).resolves.toMatchObject({ role: 'member' });
    expect(entries.map((e) => e.action)).toEqual(['user.create', 'user.role.change', 'user.role.change']);
    expect(await t.db.models.Claim.exists({ _id: USERS_CLAIM })).toBeNull();
  });

  it('takes over a claim left by a process that died mid-change', async () => {
    const { users, accounts } = setup();
    const admin = await users.create({ email: 'a@example.com', password: PASSWORD, role: 'admin' });
    const member = await users.create({ email: 'm@example.com', password: PASSWORD, role: 'member' });
    await t.db.models.Claim.create({ _id: USERS_CLAIM, owner: 'dead', at: new Date(Date.now() - USERS_CLAIM_STALE_MS - 1000) });
    await expect(accounts.setRole(admin, member.id, 'admin')).resolves.toMatchObject({ role: 'admin' });
  });

  it('removing a user ends their sessions at once', async () => {
    const { users, sessions, accounts, entries } = setup();
    const admin = await users.create({ email: 'a@example.com', password: PASSWORD, role: 'admin' });
    const member = await users.create({ email: 'm@example.com', password: PASSWORD, role: 'member' });
    const first = await sessions.create(member);
    await sessions.create(member);
    await accounts.remove(admin, member.id);
    await expect(sessions.resolve(first.sessionId)).resolves.toBeNull();
    expect(await t.db.models.Session.countDocuments({ userId: member.id })).toBe(0);
    expect(entries.at(-1)).toMatchObject({ action: 'user.remove', details: { email: 'm@example.com', endedSessions: 2 } });
  });

  it('a password change needs the current password, follows the policy and ends every other session', async () => {
    const { users, sessions, accounts, entries } = setup();
    const admin = await users.create({ email: 'a@example.com', password: PASSWORD, role: 'admin' });
    const here = await sessions.create(admin, { userAgent: 'here' });
    const elsewhere = await sessions.create(admin, { userAgent: 'elsewhere' });

    await expect(accounts.changePassword(admin, { currentPassword: 'not the password', newPassword: 'another long password', sessionId: here.sessionId, address: '203.0.113.7' })).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      details: [{ path: 'currentPassword' }],
    });
    await expect(accounts.changePassword(admin, { currentPassword: PASSWORD, newPassword: 'short', sessionId: here.sessionId })).rejects.toMatchObject({ code: 'VALIDATION_FAILED', details: [{ path: 'newPassword' }] });
    await expect(sessions.resolve(elsewhere.sessionId)).resolves.not.toBeNull();

    await expect(accounts.changePassword(admin, { currentPassword: PASSWORD, newPassword: 'another long password', sessionId: here.sessionId, address: '203.0.113.7' })).resolves.toEqual({ endedSessions: 1 });
    await expect(sessions.resolve(here.sessionId)).resolves.toMatchObject({ id: admin.id });
    await expect(sessions.resolve(elsewhere.sessionId)).resolves.toBeNull();
    await expect(users.verifyCredentials('a@example.com', 'another long password')).resolves.toMatchObject({ id: admin.id });
    await expect(users.verifyCredentials('a@example.com', PASSWORD)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    // The wrong current password counted as a failed sign-in of this account; the change is audited without a password.
    expect(entries).toEqual([
      { action: SIGN_IN_FAILED_ACTION, resourceType: 'user', resourceId: 'a@example.com', details: { address: '203.0.113.7', reason: 'invalid_credentials' } },
      { action: 'user.password.change', resourceType: 'user', resourceId: admin.id, details: { endedSessions: 1 } },
    ]);
  });

  it('checks the current password with the sign-in throttle, so a session cannot guess it without limit', async () => {
    const { users, accounts } = setup();
    const admin = await users.create({ email: 'a@example.com', password: PASSWORD, role: 'admin' });
    const guess = () => accounts.changePassword(admin, { currentPassword: 'a wrong guess!!', newPassword: 'another long password', sessionId: null, address: '198.51.100.1' });
    for (let i = 0; i < 5; i += 1) await expect(guess()).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    await expect(guess()).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    // Refused before the check: the right password from that address waits too.
    await expect(accounts.changePassword(admin, { currentPassword: PASSWORD, newPassword: 'another long password', sessionId: null, address: '198.51.100.1' })).rejects.toMatchObject({ code: 'RATE_LIMITED' });
  });

  it('lists the own sessions with the current one marked, and signs out everywhere else', async () => {
    const { users, sessions, accounts } = setup();
    const admin = await users.create({ email: 'a@example.com', password: PASSWORD, role: 'admin' });
    const other = await users.create({ email: 'o@example.com', password: PASSWORD, role: 'admin' });
    const here = await sessions.create(admin, { userAgent: 'Here/1.0' });
    await sessions.create(admin, { userAgent: 'Elsewhere/2.0' });
    const others = await sessions.create(other);
    const listed = await accounts.sessions(admin, here.sessionId);
    expect(listed.map((s) => [s.userAgent, s.current]).sort()).toEqual([
      ['Elsewhere/2.0', false],
      ['Here/1.0', true],
    ]);
    await expect(accounts.signOutOthers(admin, here.sessionId)).resolves.toBe(1);
    expect((await accounts.sessions(admin, here.sessionId)).map((s) => s.userAgent)).toEqual(['Here/1.0']);
    await expect(sessions.resolve(others.sessionId)).resolves.not.toBeNull();
  });

  it('creates with a generated password shown once, never audited, and pages users by email', async () => {
    const { users, accounts, entries } = setup();
    const admin = await users.create({ email: 'a@example.com', password: PASSWORD, role: 'admin' });
    const created = await accounts.create(admin, { email: 'New@Example.com', role: 'member' });
    expect(created.password).toMatch(/^[\w-]{16}$/);
    expect(created.user).toMatchObject({ email: 'new@example.com', role: 'member' });
    await expect(users.verifyCredentials('new@example.com', created.password!)).resolves.toMatchObject({ role: 'member' });
    expect(JSON.stringify(entries)).not.toContain(created.password);
    await expect(accounts.create(admin, { email: 'typed@example.com', role: 'admin', password: 'a typed password!' })).resolves.toMatchObject({ password: null });
    await expect(accounts.create(admin, { email: 'new@example.com', role: 'member' })).rejects.toMatchObject({ code: 'CONFLICT' });

    const first = await accounts.list({ limit: 2, after: null });
    expect(first.users.map((u) => u.email)).toEqual(['a@example.com', 'new@example.com']);
    const second = await accounts.list({ limit: 2, after: first.next });
    expect(second).toMatchObject({ users: [{ email: 'typed@example.com', role: 'admin' }], next: null });
  });

  it('resets a password from the command line and ends every session of that user', async () => {
    const { users, sessions, accounts, entries } = setup();
    const admin = await users.create({ email: 'a@example.com', password: PASSWORD, role: 'admin' });
    const session = await sessions.create(admin);
    await accounts.resetPassword('A@example.com', 'a brand new password', 'admin:create');
    await expect(sessions.resolve(session.sessionId)).resolves.toBeNull();
    await expect(users.verifyCredentials('a@example.com', 'a brand new password')).resolves.toMatchObject({ id: admin.id });
    expect(entries).toEqual([{ action: 'user.password.reset', resourceType: 'user', resourceId: admin.id, details: { email: 'a@example.com', source: 'admin:create', endedSessions: 1 } }]);
    await expect(accounts.resetPassword('nobody@example.com', 'a brand new password', 'admin:create')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(accounts.resetPassword('a@example.com', 'short', 'admin:create')).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(systemActor('admin:create').id).toBe('worker:admin:create');
  });
});
