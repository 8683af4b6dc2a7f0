import { createCookie, type Cookie } from '@remix-run/node';
import type { ServiceConfig } from '@service/core/config';
import { SESSION_TTL_MS } from '@service/core/auth';

const cookies = new WeakMap<ServiceConfig, Cookie>();

/** The session cookie carries only the signed, opaque session id; everything else is in MongoDB. */
export function sessionCookie(config: ServiceConfig): Cookie {
  let cookie = cookies.get(config);
  if (!cookie) {
    cookie = createCookie('service_session', {
      httpOnly: true,
      sameSite: 'lax',
      secure: config.baseUrl.startsWith('https://'),
      path: '/',
      maxAge: Math.floor(SESSION_TTL_MS / 1000),
      secrets: [config.sessionSecret],
    });
    cookies.set(config, cookie);
  }
  return cookie;
}
