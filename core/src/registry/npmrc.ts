import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { withTrailingSlash } from './topology.ts';

/** `//host[:port]/path/` — the key npm matches an auth token against. */
export function npmrcAuthKey(registryUrl: string): string {
  const url = new URL(withTrailingSlash(registryUrl));
  return `//${url.host}${url.pathname}`;
}

/**
 * Runs `fn` with a private npmrc holding the registry token (mode 0600 in a fresh 0700 dir),
 * removed in `finally` whatever happens. The token never appears on a command line.
 */
export async function withTemporaryNpmrc<T>(registryUrl: string, token: string | null, fn: (userconfig: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'service-npmrc-'));
  const file = path.join(dir, 'npmrc');
  try {
    const lines = token ? [`${npmrcAuthKey(registryUrl)}:_authToken=${token}`] : [];
    await writeFile(file, lines.join('\n') + '\n', { mode: 0o600 });
    return await fn(file);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
