import { TRPCError } from '@trpc/server';
import { testServices, useTestDatabase } from '@service/core/testing';
import type { Services } from '@service/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { createCaller } from './router.server.ts';
import { handleTrpc } from './handler.server.ts';

const t = useTestDatabase();
let services: Services;

beforeAll(() => {
  services = testServices(t.db, { SERVICE_A2A_HTTP_ENABLED: 'false' });
});

const admin = { type: 'ui', id: 'a1', email: 'a@example.com', role: 'admin' } as const;
const member = { type: 'ui', id: 'm1', email: 'm@example.com', role: 'member' } as const;

describe('adminProcedure', () => {
  it('rejects an anonymous caller with UNAUTHORIZED', async () => {
    const error = await createCaller({ services, actor: null }).system.info().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TRPCError);
    expect((error as TRPCError).code).toBe('UNAUTHORIZED');
  });

  it('rejects a signed-in non-admin with FORBIDDEN', async () => {
    await expect(createCaller({ services, actor: member }).audit.list({})).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });

  it('rejects non-UI actors too', async () => {
    await expect(createCaller({ services, actor: { type: 'a2a', id: 'c', clientId: 'c' } }).system.info()).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });

  it('lets an admin read system.info with identity, version and live flags', async () => {
    const caller = createCaller({ services, actor: admin });
    const info = await caller.system.info();
    expect(info).toMatchObject({ productName: 'Acme Agents', vendorScope: '@acme', version: services.version });
    process.env.SERVICE_A2A_HTTP_ENABLED = 'true';
    try {
      expect((await caller.system.info()).flags.a2aHttpEnabled).toBe(true);
    } finally {
      delete process.env.SERVICE_A2A_HTTP_ENABLED;
    }
  });

  it('pages audit.list and maps domain errors to tRPC codes', async () => {
    for (let i = 0; i < 3; i++) services.audit.record(admin, { action: 'test', resourceType: 'thing', resourceId: String(i) });
    await services.audit.flush();
    const caller = createCaller({ services, actor: admin });
    const page = await caller.audit.list({ limit: 2 });
    expect(page.items).toHaveLength(2);
    expect(page.nextCursor).toBeTruthy();
    await expect(caller.audit.list({ cursor: 'forged' })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  });

  it('answers 401 over HTTP at /api/trpc without leaking a stack', async () => {
    const response = await handleTrpc(new Request('http://127.0.0.1:3999/api/trpc/system.info'), services);
    expect(response.status).toBe(401);
    const body = (await response.json()) as { error: { data: Record<string, unknown> } };
    expect(body.error.data).not.toHaveProperty('stack');
    expect(body.error.data.code).toBe('UNAUTHORIZED');
  });
});

describe('error mapping', () => {
  it('turns an unexpected throw into INTERNAL_SERVER_ERROR without its message, logged once', async () => {
    const { router, publicProcedure, createCallerFactory } = await import('./init.server.ts');
    const boomRouter = router({ boom: publicProcedure.query(() => { throw new Error('connection string with secret'); }) });
    const logged = testServices(t.db);
    const error = await createCallerFactory(boomRouter)({ services: logged, actor: null }).boom().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'INTERNAL_SERVER_ERROR', message: 'Internal error' });
    expect(logged.logger.records.filter((r) => r.level === 'error')).toHaveLength(1);
  });
});
