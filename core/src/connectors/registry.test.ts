import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { createAuditLog } from '../audit/index.ts';
import { createMemoryLogger } from '../log/index.ts';
import { testServices, useTestDatabase } from '../testing/index.ts';
import { createPrimitiveRegistry, definePrimitive, PRIMITIVE_ACCESS_DENIED } from './index.ts';

const t = useTestDatabase();

const writeThing = definePrimitive({
  name: 'demo_thing_update',
  connector: 'demo',
  description: 'test primitive',
  input: z.object({ id: z.string().min(1), title: z.string().max(10) }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  permission: 'write',
  handler: async (_context, input) => ({ updated: input.id }),
});

const client = (allowedPrimitives: string[]) => ({ type: 'a2a' as const, id: 'oauth:c', clientId: 'c', grants: { allowedAgents: [], permissions: [], allowedPrimitives } });

describe('primitive registry', () => {
  it('validates every registered primitive\'s input with a message naming the field, never a 5xx', async () => {
    const services = testServices(t.db);
    const worker = { type: 'worker', id: 'w', job: 'test' } as const;
    // Table-driven over everything registered: an argument of the wrong type for every field.
    for (const primitive of services.primitives.list()) {
      // The first field with a value of the wrong type; a primitive without fields gets an unknown one.
      const field = Object.keys(primitive.input.shape)[0] ?? 'unexpected';
      const error = await services.primitives.call(worker, primitive.name, { [field]: { wrong: true } }).catch((e: unknown) => e);
      expect(error, primitive.name).toMatchObject({ code: 'VALIDATION_FAILED', httpStatus: 400 });
      expect((error as Error).message, primitive.name).toContain(field);
    }
  });

  it('declares an output schema for every registered primitive (MCP clients see it as outputSchema)', () => {
    const services = testServices(t.db);
    const undeclared = services.primitives.list().filter((primitive) => !primitive.output).map((primitive) => primitive.name);
    expect(undeclared).toEqual([]);
  });

  it('refuses an answer that breaks the declared output, after auditing the write', async () => {
    const audit = createAuditLog(t.db.models, createMemoryLogger());
    const answering = (answer: unknown) =>
      createPrimitiveRegistry({ primitives: [definePrimitive({ ...writeThing, output: z.object({ updated: z.string() }), handler: async () => answer as { updated: string } })], audit });
    await expect(answering({ updated: 'x', extra: 1 }).call(client(['*']), 'demo_thing_update', { id: 'x', title: 'ok' })).resolves.toEqual({ updated: 'x', extra: 1 });
    await expect(answering({ updated: 7 }).call(client(['*']), 'demo_thing_update', { id: 'x', title: 'ok' })).rejects.toMatchObject({
      code: 'UPSTREAM_FAILED',
      message: 'demo_thing_update answered an unexpected shape: updated Invalid input: expected string, received number',
    });
    await audit.flush();
    expect(await t.db.models.AuditEvent.countDocuments({ action: 'primitive.demo_thing_update' })).toBe(2);
  });

  it('checks grants on every call: the primitive, its connector or *; others are refused', async () => {
    const registry = createPrimitiveRegistry({ primitives: [writeThing], audit: createAuditLog(t.db.models, createMemoryLogger()) });
    const input = { id: 'x', title: 'ok' };
    for (const grants of [['demo_thing_update'], ['demo'], ['*']]) await expect(registry.call(client(grants), 'demo_thing_update', input)).resolves.toEqual({ updated: 'x' });
    for (const grants of [[], ['other'], ['demo_thing']]) await expect(registry.call(client(grants), 'demo_thing_update', input)).rejects.toMatchObject({ code: 'FORBIDDEN', message: PRIMITIVE_ACCESS_DENIED });
    await expect(registry.call({ type: 'route', id: 'widget', route: 'stream' }, 'demo_thing_update', input)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(registry.call(client(['*']), 'demo_thing_update', { id: '', title: 'much too long' })).rejects.toMatchObject({ details: [{ path: 'id', reason: expect.any(String) }, { path: 'title', reason: expect.any(String) }] });
  });

  it('audits writes with the actor', async () => {
    const audit = createAuditLog(t.db.models, createMemoryLogger());
    const registry = createPrimitiveRegistry({ primitives: [writeThing], audit });
    await registry.call(client(['demo']), 'demo_thing_update', { id: 'a1', title: 't' });
    await audit.flush();
    expect((await audit.list()).items[0]).toMatchObject({
      action: 'primitive.demo_thing_update',
      actor: { type: 'a2a', id: 'oauth:c' },
      resourceId: 'a1',
      details: { input: { id: { type: 'string', bytes: 2, preview: 'a1' }, title: { type: 'string', bytes: 1 } } },
    });
  });

  it('audits a write with the instance and item and a bounded summary of its input, never the content', async () => {
    const upload = definePrimitive({
      name: 'demo_media_upload',
      connector: 'demo',
      description: 'test primitive',
      input: z.object({ instanceId: z.string(), id: z.number(), filename: z.string(), dataBase64: z.string(), password: z.string() }),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
      permission: 'write',
      handler: async () => ({ ok: true }),
    });
    const audit = createAuditLog(t.db.models, createMemoryLogger());
    const registry = createPrimitiveRegistry({ primitives: [upload], audit });
    const dataBase64 = Buffer.alloc(3 * 1024 * 1024, 7).toString('base64');
    await registry.call(client(['demo']), 'demo_media_upload', { instanceId: 'wp', id: 12, filename: 'a.png', dataBase64, password: 'app-password-secret' });
    await audit.flush();
    const row = (await audit.list()).items.find((item) => item.action === 'primitive.demo_media_upload')!;
    expect(row).toMatchObject({ resourceType: 'demo', resourceId: 'wp/12' });
    expect(row.details!.input).toMatchObject({ filename: { preview: 'a.png' }, dataBase64: { type: 'string', bytes: dataBase64.length }, password: { type: 'redacted' } });
    const stored = JSON.stringify(row.details);
    expect(Buffer.byteLength(stored)).toBeLessThanOrEqual(2 * 1024);
    expect(stored).not.toContain(dataBase64.slice(0, 32));
    expect(stored).not.toContain('app-password-secret');
  });
});
