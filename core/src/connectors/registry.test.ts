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
    expect((await audit.list()).items[0]).toMatchObject({ action: 'primitive.demo_thing_update', actor: { type: 'a2a', id: 'oauth:c' }, details: { input: { id: 'a1', title: 't' } } });
  });
});
