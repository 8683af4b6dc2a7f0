import type { AppLoadContext } from '@remix-run/node';
import { testServices, useTestDatabase } from '@service/core/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { action as signInAction } from '~/routes/sign-in.tsx';
import { loader as adminLoader } from '~/routes/administration.tsx';
import { handleTrpc } from '~/trpc/handler.server.ts';

const t = useTestDatabase();
let context: AppLoadContext;
let cookie: string;

beforeAll(async () => {
  context = { services: testServices(t.db) };
  await context.services.users.create({ email: 'ops@example.com', password: 'correct horse battery', role: 'admin' });
  const response = (await signInAction({
    request: new Request('http://127.0.0.1:3999/sign-in', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email: 'ops@example.com', password: 'correct horse battery' }),
    }),
    context,
    params: {},
  })) as Response;
  cookie = response.headers.get('set-cookie')!.split(';')[0]!;
});

/** The users collection stops answering (a failover, a network partition) while sessions still do. */
async function whileUsersFail<T>(work: () => Promise<T>): Promise<T> {
  const User = t.db.models.User as unknown as { findById: unknown };
  const findById = User.findById;
  User.findById = () => ({ lean: () => Promise.reject(Object.assign(new Error('connection to 127.0.0.1:27017 closed'), { name: 'MongoNetworkError' })) });
  try {
    return await work();
  } finally {
    User.findById = findById;
  }
}

const adminPage = () => adminLoader({ request: new Request('http://127.0.0.1:3999/administration', { headers: { cookie } }), context, params: {} });

describe('a database outage while resolving the session (issue 11, item 13)', () => {
  it('answers 503 with the health state instead of redirecting a signed-in admin to sign-in', async () => {
    await expect(adminPage()).resolves.toMatchObject({ email: 'ops@example.com' });
    const thrown = await whileUsersFail(() => adminPage().catch((e: unknown) => e));
    expect(thrown).toBeInstanceOf(Response);
    const response = thrown as Response;
    expect(response.headers.get('location')).toBeNull();
    expect(response.status).toBe(503);
    const body = (await response.json()) as { error: { code: string }; health: { status: string; checks: { database: { status: string } } } };
    expect(body.error.code).toBe('DEPENDENCY_UNAVAILABLE');
    // The health state as /healthz reports it at that moment (the database itself still answers a ping here).
    expect(body.health).toMatchObject({ status: expect.any(String), checks: { database: { status: expect.stringMatching(/^(up|down)$/) } } });
  });

  it('answers a full outage (the connection is gone) the same way, with the database down', async () => {
    const { connectDatabase } = await import('@service/core/db');
    const { createServices } = await import('@service/core');
    const { createMemoryLogger } = await import('@service/core/log');
    const database = await connectDatabase(t.uri, { serverSelectionTimeoutMS: 500 });
    // The same config (so the same cookie secret), on a connection that is then lost.
    const services = createServices({ config: context.services.config, logger: createMemoryLogger(), database });
    await database.close();
    const thrown = await adminLoader({ request: new Request('http://127.0.0.1:3999/administration', { headers: { cookie } }), context: { services }, params: {} }).catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(Response);
    expect((thrown as Response).status).toBe(503);
    expect(await (thrown as Response).json()).toMatchObject({ health: { status: 'degraded', checks: { database: { status: 'down' } } } });
  });

  it('answers tRPC with the same 503, not UNAUTHORIZED', async () => {
    const response = await whileUsersFail(() => handleTrpc(new Request('http://127.0.0.1:3999/api/trpc/system.info', { headers: { cookie } }), context.services));
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({ error: { code: 'DEPENDENCY_UNAVAILABLE' }, health: { checks: { database: {} } } });
  });
});
