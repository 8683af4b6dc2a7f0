import { DomainError } from '../errors/index.ts';
import { readBytesLimited, type OutboundHttp } from '../http/index.ts';
import { withTrailingSlash } from './topology.ts';

export const MAX_TARBALL_BYTES = 5 * 1024 * 1024;

/** Only send the token to the registry's own origin, never to a host a packument points at. */
function authHeaders(registryUrl: string, target: string, token: string | null): Record<string, string> {
  return token && new URL(target).origin === new URL(registryUrl).origin ? { authorization: `Bearer ${token}` } : {};
}

/** Packuments and search answers larger than this are refused. */
const MAX_JSON_BYTES = 8 * 1024 * 1024;

export async function registryGetJson<T>(http: OutboundHttp, registryUrl: string, pathname: string, token: string | null): Promise<T | null> {
  const url = new URL(pathname, withTrailingSlash(registryUrl)).toString();
  const response = await http.fetch(url, { headers: { accept: 'application/json', ...authHeaders(registryUrl, url, token) } });
  // Not there, or not readable with this destination's token: the same to the reader.
  if (response.status === 404 || response.status === 403 || response.status === 401) return null;
  if (!response.ok) throw new DomainError('UPSTREAM_FAILED', `registry answered ${response.status} for ${new URL(url).pathname}`);
  return http.json<T>(response, MAX_JSON_BYTES, 'registry answer');
}

export async function registryGetTarball(http: OutboundHttp, registryUrl: string, tarballUrl: string, token: string | null): Promise<Buffer> {
  // The packument names the tarball's URL: it goes through the same policy, and the token only to the registry's own origin.
  const response = await http.fetch(tarballUrl, { headers: authHeaders(registryUrl, tarballUrl, token) });
  if (!response.ok) throw new DomainError('UPSTREAM_FAILED', `registry answered ${response.status} for the tarball`);
  return readBytesLimited(response, MAX_TARBALL_BYTES, 'tarball');
}

/** `@scope/name` as the registry path segment npm uses (`@scope%2fname`). */
export function packumentPath(packageName: string): string {
  return packageName.replace('/', '%2f');
}
