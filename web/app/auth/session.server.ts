import { redirect } from '@remix-run/node';
import type { Services } from '@service/core';
import type { UiActor } from '@service/core/auth';
import { sessionCookie } from './session-cookie.server.ts';

export async function readSessionId(request: Request, services: Services): Promise<string | null> {
  const value: unknown = await sessionCookie(services.config).parse(request.headers.get('cookie'));
  return typeof value === 'string' ? value : null;
}

/** The signed-in user, or null. */
export async function getUser(request: Request, services: Services): Promise<UiActor | null> {
  const sessionId = await readSessionId(request, services);
  return sessionId ? services.sessions.resolve(sessionId) : null;
}

/** Returns the signed-in admin or throws: a redirect to sign-in when anonymous, 403 when not an admin. */
export async function requireAdmin(request: Request, services: Services): Promise<UiActor> {
  const user = await getUser(request, services);
  if (!user) {
    const url = new URL(request.url);
    throw redirect(`/sign-in?${new URLSearchParams({ redirectTo: url.pathname + url.search })}`);
  }
  if (user.role !== 'admin') throw new Response('Administration is for admins only', { status: 403 });
  return user;
}

export async function startSession(services: Services, user: UiActor, request: Request, redirectTo: string) {
  const { sessionId } = await services.sessions.create(user, { userAgent: request.headers.get('user-agent') ?? undefined });
  services.audit.record(user, { action: 'session.sign-in', resourceType: 'user', resourceId: user.id });
  return redirect(redirectTo, { headers: { 'set-cookie': await sessionCookie(services.config).serialize(sessionId) } });
}

export async function endSession(request: Request, services: Services) {
  const sessionId = await readSessionId(request, services);
  if (sessionId) {
    const user = await services.sessions.resolve(sessionId);
    await services.sessions.destroy(sessionId);
    if (user) services.audit.record(user, { action: 'session.sign-out', resourceType: 'user', resourceId: user.id });
  }
  return redirect('/sign-in', { headers: { 'set-cookie': await sessionCookie(services.config).serialize('', { maxAge: 0 }) } });
}

/** Only same-site relative paths: never an open redirect. */
export function safeRedirect(target: FormDataEntryValue | string | null | undefined, fallback = '/administration'): string {
  if (typeof target !== 'string' || !target.startsWith('/') || target.startsWith('//') || target.startsWith('/\\')) return fallback;
  return target;
}
