import { describe, expect, it } from 'vitest';
import { connectDatabase } from '../db/index.ts';
import { createMemoryLogger } from '../log/index.ts';
import { useTestDatabase } from '../testing/index.ts';
import { createAuditLog } from './index.ts';

const t = useTestDatabase();
const actor = { type: 'ui', id: 'u1', email: 'a@example.com', role: 'admin' } as const;

describe('audit', () => {
  it('records rows fire-and-forget and lists them newest first, paged', async () => {
    const audit = createAuditLog(t.db.models, createMemoryLogger());
    for (let i = 0; i < 5; i++) audit.record(actor, { action: 'test.step', resourceType: 'thing', resourceId: `r${i}`, details: { i } });
    await audit.flush();
    const first = await audit.list({ limit: 3 });
    expect(first.items).toHaveLength(3);
    expect(first.nextCursor).not.toBeNull();
    const second = await audit.list({ limit: 3, cursor: first.nextCursor });
    expect(second.items).toHaveLength(2);
    expect(second.nextCursor).toBeNull();
    const ids = [...first.items, ...second.items].map((row) => row.resourceId);
    expect(new Set(ids).size).toBe(5);
    expect(first.items[0]).toMatchObject({ actor: { type: 'ui', id: 'u1' }, action: 'test.step', resourceType: 'thing' });
  });

  it('narrows a page by actor (email, client id or id), action (or a prefix) and time, and names the actors', async () => {
    const { User, OauthClient, AuditEvent } = t.db.models;
    await AuditEvent.deleteMany({});
    const user = await User.create({ email: 'ops@example.com', passwordHash: 'x', role: 'admin' });
    await OauthClient.create({ clientId: 'svc_peer', name: 'Peer instance', secretHash: 'x', secretRotatedAt: new Date(), allowedAgents: ['*'], permissions: ['read'], createdBy: 'x' });
    const audit = createAuditLog(t.db.models, createMemoryLogger());
    const admin = { type: 'ui', id: String(user._id), email: 'ops@example.com', role: 'admin' } as const;
    const client = { type: 'a2a', id: 'oauth:svc_peer' } as never;
    audit.record(admin, { action: 'settings.update', resourceType: 'setting', resourceId: 'features' });
    audit.record(client, { action: 'a2a.message.send', resourceType: 'run', resourceId: 'r1' });
    audit.record(client, { action: 'a2a.tasks.cancel', resourceType: 'run', resourceId: 'r1' });
    await audit.flush();
    const actions = async (filter: object) => (await audit.list({ filter })).items.map((row) => row.action);
    expect(await actions({ actor: 'ops@example.com' })).toEqual(['settings.update']);
    expect(await actions({ actor: 'svc_peer' })).toEqual(['a2a.tasks.cancel', 'a2a.message.send']);
    expect(await actions({ actor: 'nobody@example.com' })).toEqual([]);
    expect(await actions({ action: 'a2a.' })).toEqual(['a2a.tasks.cancel', 'a2a.message.send']);
    expect(await actions({ action: 'a2a' })).toEqual([]);
    expect(await actions({ from: new Date(Date.now() + 60_000) })).toEqual([]);
    expect(await actions({ to: new Date(Date.now() - 60_000) })).toEqual([]);
    expect(await actions({ from: new Date(Date.now() - 60_000), to: new Date(Date.now() + 60_000), action: 'settings.update' })).toEqual(['settings.update']);
    const named = (await audit.list()).items.map((row) => row.actor.name);
    expect(named).toEqual(['Peer instance', 'Peer instance', 'ops@example.com']);
  });

  it('a failing write neither throws into nor waits for the caller, and is logged', async () => {
    const broken = await connectDatabase(t.uri);
    await broken.close();
    const logger = createMemoryLogger();
    const audit = createAuditLog(broken.models, logger);
    let result: unknown = 'unset';
    expect(() => {
      result = audit.record(actor, { action: 'promote', resourceType: 'extension_registry', resourceId: 'x' });
    }).not.toThrow();
    expect(result).toBeUndefined();
    expect(logger.records).toHaveLength(0);
    await audit.flush();
    expect(logger.records).toEqual([expect.objectContaining({ level: 'error', message: 'audit write failed' })]);
  });

  it('rejects a forged cursor with a validation error', async () => {
    const audit = createAuditLog(t.db.models, createMemoryLogger());
    await expect(audit.list({ cursor: 'garbage' })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
  });
});
