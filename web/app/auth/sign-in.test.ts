import type { AppLoadContext } from '@remix-run/node';
import { testServices, useTestDatabase } from '@service/core/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { action as signInAction } from '~/routes/sign-in.tsx';
import { action as signOutAction } from '~/routes/sign-out.ts';
import { loader as adminLoader } from '~/routes/administration.tsx';

const t = useTestDatabase();
let context: AppLoadContext;

beforeAll(async () => {
  context = { services: testServices(t.db) };
  await context.services.users.create({ email: 'admin@example.com', password: 'correct horse battery', role: 'admin' });
  await context.services.users.create({ email: 'member@example.com', password: 'correct horse battery', role: 'member' });
});

function signInRequest(email: string, password: string) {
  return new Request('http://127.0.0.1:3999/sign-in', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ email, password, redirectTo: '/administration/audit' }),
  });
}

async function signIn(email: string, password: string): Promise<Response> {
  const result: unknown = await signInAction({ request: signInRequest(email, password), context, params: {} });
  return result as Response;
}

/** Remix's single-fetch `data()` result: the body and status an action returned. */
function asData(result: unknown): { data: { error: string }; init: { status: number } } {
  return result as { data: { error: string }; init: { status: number } };
}

describe('sign-in', () => {
  it('rejects a wrong password with the same message as an unknown user', async () => {
    const wrong = asData(await signIn('admin@example.com', 'not the password'));
    const unknown = asData(await signIn('ghost@example.com', 'correct horse battery'));
    expect(wrong.init.status).toBe(401);
    expect(unknown.init.status).toBe(401);
    expect(wrong.data.error).toBe('Invalid email or password');
    expect(unknown.data.error).toBe(wrong.data.error);
  });

  it('sets a cookie that holds only an opaque session id, and sign-out invalidates the row', async () => {
    const response = await signIn('admin@example.com', 'correct horse battery');
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe('/administration/audit');
    const setCookie = response.headers.get('set-cookie')!;
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Lax/i);

    const cookieValue = decodeURIComponent(setCookie.split(';')[0]!.split('=').slice(1).join('='));
    const [payload] = cookieValue.split('.');
    const sessionId = JSON.parse(Buffer.from(payload!, 'base64').toString('utf8')) as unknown;
    expect(typeof sessionId).toBe('string');
    expect(sessionId).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const decoded = Buffer.from(payload!, 'base64').toString('utf8');
    const user = await t.db.models.User.findOne({ email: 'admin@example.com' }).lean();
    for (const leaked of ['admin@example.com', 'admin', String(user!._id)]) expect(decoded).not.toContain(leaked);

    const cookie = setCookie.split(';')[0]!;
    expect(await t.db.models.Session.countDocuments({ userId: user!._id })).toBe(1);
    const admin = await adminLoader({ request: new Request('http://127.0.0.1:3999/administration', { headers: { cookie } }), context, params: {} });
    expect(admin).toMatchObject({ email: 'admin@example.com' });

    const out = (await signOutAction({ request: new Request('http://127.0.0.1:3999/sign-out', { method: 'POST', headers: { cookie } }), context, params: {} })) as Response;
    expect(out.status).toBe(302);
    expect(out.headers.get('set-cookie')).toMatch(/Max-Age=0/);
    expect(await t.db.models.Session.countDocuments({ userId: user!._id })).toBe(0);

    const after = await adminLoader({ request: new Request('http://127.0.0.1:3999/administration', { headers: { cookie } }), context, params: {} }).catch((e: unknown) => e);
    expect(after).toBeInstanceOf(Response);
    expect((after as Response).headers.get('location')).toMatch(/^\/sign-in\?redirectTo=/);
  });

  it('keeps non-admins out of Administration with 403', async () => {
    const response = await signIn('member@example.com', 'correct horse battery');
    const cookie = response.headers.get('set-cookie')!.split(';')[0]!;
    const denied = await adminLoader({ request: new Request('http://127.0.0.1:3999/administration', { headers: { cookie } }), context, params: {} }).catch((e: unknown) => e);
    expect((denied as Response).status).toBe(403);
  });

  it('never redirects off-site after sign-in', async () => {
    const request = new Request('http://127.0.0.1:3999/sign-in', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email: 'admin@example.com', password: 'correct horse battery', redirectTo: '//evil.example.com/' }),
    });
    const response = (await signInAction({ request, context, params: {} })) as Response;
    expect(response.headers.get('location')).toBe('/administration');
  });
});
