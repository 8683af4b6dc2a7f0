import { DomainError } from '../errors/index.ts';
import { readBytesLimited } from '../http/index.ts';
import { withTrailingSlash } from './topology.ts';

export const MAX_TARBALL_BYTES = 5 * 1024 * 1024;

/** Only send the token to the registry's own origin, never to a host a packument points at. */
function authHeaders(registryUrl: string, target: string, token: string | null): Record<string, string> {
  return token && new URL(target).origin === new URL(registryUrl).origin ? { authorization: `Bearer ${token}` } : {};
}

export async function registryGetJson<T>(registryUrl: string, pathname: string, token: string | null): Promise<T | null> {
  const url = new URL(pathname, withTrailingSlash(registryUrl)).toString();
  const response = await fetch(url, { headers: { accept: 'application/json', ...authHeaders(registryUrl, url, token) } });
  // Not there, or not readable with this destination's token: the same to the reader.
  if (response.status === 404 || response.status === 403 || response.status === 401) return null;
  if (!response.ok) throw new DomainError('UPSTREAM_FAILED', `registry answered ${response.status} for ${new URL(url).pathname}`);
  return (await response.json()) as T;
}

export async function registryGetTarball(registryUrl: string, tarballUrl: string, token: string | null): Promise<Buffer> {
  const response = await fetch(tarballUrl, { headers: authHeaders(registryUrl, tarballUrl, token) });
  if (!response.ok) throw new DomainError('UPSTREAM_FAILED', `registry answered ${response.status} for the tarball`);
  return readBytesLimited(response, MAX_TARBALL_BYTES, 'tarball');
}

/** `@scope/name` as the registry path segment npm uses (`@scope%2fname`). */
export function packumentPath(packageName: string): string {
  return packageName.replace('/', '%2f');
}
