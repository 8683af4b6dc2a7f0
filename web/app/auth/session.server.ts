import { redirect } from '@remix-run/node';
import type { Services } from '@service/core';
import type { UiActor } from '@service/core/auth';
import { isDomainError } from '@service/core/errors';
import { sessionCookie } from './session-cookie.server.ts';

export async function readSessionId(request: Request, services: Services): Promise<string | null> {
  const value: unknown = await sessionCookie(services.config).parse(request.headers.get('cookie'));
  return typeof value === 'string' ? value : null;
}

/**
 * The signed-in user, or null. A database that does not answer is not "signed out": it throws a
 * 503 answer with the health state (see `unavailable`).
 */
export async function getUser(request: Request, services: Services): Promise<UiActor | null> {
  const sessionId = await readSessionId(request, services);
  if (!sessionId) return null;
  try {
    return await services.sessions.resolve(sessionId);
  } catch (error) {
    throw await unavailableOr(error, services);
  }
}

/**
 * The answer to a DEPENDENCY_UNAVAILABLE error: 503 with the message and what /healthz reports
 * right now (`{ error, health }`, JSON, so pages and tRPC clients alike can show it). Anything
 * else is returned as it was, for the caller to rethrow.
 */
export async function unavailableOr(error: unknown, services: Services): Promise<unknown> {
  if (!isDomainError(error) || error.code !== 'DEPENDENCY_UNAVAILABLE') return error;
  services.logger.error('database unavailable', { error: error.cause ?? error });
  const health: unknown = await services.handlers
    .healthz(new Request(new URL('/healthz', services.config.baseUrl)))
    .then((response) => response.json())
    .catch(() => ({ status: 'degraded', checks: { database: { status: 'down' } } }));
  const body = JSON.stringify({ error: error.toPublicJSON(), health });
  return new Response(body, {
    status: 503,
    statusText: 'Service Unavailable',
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'retry-after': '5' },
  });
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
    const user = await getUser(request, services);
    await services.sessions.destroy(sessionId);
    if (user) services.audit.record(user, { action: 'session.sign-out', resourceType: 'user', resourceId: user.id });
  }
  return redirect('/sign-in', { headers: { 'set-cookie': await sessionCookie(services.config).serialize('', { maxAge: 0 }) } });
}

/** Any origin will do: a target is accepted only when it stays on whichever origin it is resolved against. */
const SITE = new URL('http://site.invalid');
/** C0 and C1 controls and DEL: browsers drop some of them (tab, newline) before resolving, so `/\t/evil` would leave. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * Only same-origin paths: never an open redirect. The target is resolved as a URL against the
 * site; it must be a path (starting with one `/`), carry no control characters or backslashes,
 * stay on the site's origin, and its normalized form (what the Location header carries) must
 * again be a path of this site, not a scheme-relative `//host`.
 */
export function safeRedirect(target: FormDataEntryValue | string | null | undefined, fallback = '/administration'): string {
  // Long enough for an OAuth authorization request coming back after sign-in (a metadata-document
  // client id, a redirect URI, PKCE and state can take a few KiB).
  if (typeof target !== 'string' || target.length > 8192) return fallback;
  if (!target.startsWith('/') || CONTROL.test(target) || target.includes('\\')) return fallback;
  let url: URL;
  try {
    url = new URL(target, SITE);
  } catch {
    return fallback;
  }
  if (url.origin !== SITE.origin) return fallback;
  const path = url.pathname + url.search + url.hash;
  return path.startsWith('/') && !path.startsWith('//') ? path : fallback;
}
