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
