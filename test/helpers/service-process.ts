import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitForOutput } from './child-output.ts';
import { stopChild } from './stop-child.ts';

const webDir = fileURLToPath(new URL('../../web/', import.meta.url));

export interface RunningService {
  url: string;
  /** The web process's id (a run lease's owner starts with it). */
  pid: number;
  /** Its SERVICE_DATA_DIR (removed by `stop()`). */
  dataDir: string;
  /** Everything the process wrote, for failure messages. */
  output(): string;
  stop(): Promise<void>;
  /** SIGKILL to its whole process group (runtime, database, registry too): no shutdown handlers run, as when a host dies. */
  kill(): Promise<void>;
  /** SIGKILL to the web process alone, as `kill -9 <pid>` or the OOM killer would: its children are left to fend for themselves. */
  killProcessOnly(): Promise<void>;
}

/**
 * Starts the real service (web/server.ts on the production build) as a child process on a free
 * port, against the given database (none: the embedded default), and resolves once it prints its
 * URL. `maxOpenFiles` runs it under that descriptor limit (soft and hard).
 */
/**
 * Starts the built service. `dataDir`: a data directory to use and keep (a restart on it, as a
 * user's second `pnpm start`): the service's own generated secrets are used, not test keys.
 */
export async function startService(options: { mongodbUri?: string; env?: Record<string, string>; maxOpenFiles?: number; dataDir?: string }): Promise<RunningService> {
  if (!existsSync(path.join(webDir, 'build/server.js'))) {
    throw new Error('web/build is missing: run `pnpm build` first (the root `pnpm test` does)');
  }
  const dataDir = options.dataDir ?? mkdtempSync(path.join(os.tmpdir(), 'service-e2e-'));
  const keys = options.dataDir
    ? {}
    : { SERVICE_MASTER_KEY: randomBytes(32).toString('base64'), SERVICE_SESSION_SECRET: randomBytes(32).toString('base64url') };
  // The built server, as `pnpm start` runs it (no TypeScript loader, no wrapper process: with a
  // descriptor limit, the shell sets it and execs into the server). Node raises its soft limit to
  // the hard one at start, so `ulimit -n` sets both.
  const [command, args] = options.maxOpenFiles
    ? ['/bin/sh', ['-c', 'ulimit -n "$0" && exec "$@"', String(options.maxOpenFiles), process.execPath, 'build/server.js']]
    : [process.execPath, ['build/server.js']];
  const child = spawn(command, args, {
    cwd: webDir,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: 'test',
      HOST: '127.0.0.1',
      PORT: '0',
      // Without one: the embedded default (its own database and registry in the data directory).
      ...(options.mongodbUri ? { MONGODB_URI: options.mongodbUri } : {}),
      SERVICE_DATA_DIR: dataDir,
      ...keys,
      SERVICE_BRIDGE_TOKEN: randomBytes(32).toString('base64url'),
      // Every peer, registry and CMS site of the tests listens on loopback.
      SERVICE_OUTBOUND_ALLOW_PRIVATE: 'true',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so kill() reaches the runtime, database and registry children too.
    detached: true,
  });
  const { value: url, output } = await waitForOutput(child, /service listening on (http:\/\/[^\s"]+)/, 'service', 60_000);
  return {
    url,
    pid: child.pid!,
    dataDir,
    output,
    stop: () => stopChild(child, options.dataDir ? undefined : dataDir),
    kill: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        process.kill(-child.pid!, 'SIGKILL');
      }),
    killProcessOnly: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  };
}

/** Signs in over HTTP like a browser form would and returns the session cookie. */
export async function signInCookie(url: string, email: string, password: string): Promise<string> {
  const response = await fetch(`${url}/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ email, password, redirectTo: '/administration' }),
    redirect: 'manual',
  });
  const cookie = response.headers.get('set-cookie')?.split(';')[0];
  if (response.status !== 302 || !cookie) throw new Error(`sign-in failed with ${response.status}`);
  return cookie;
}

/** Calls a tRPC procedure over HTTP as the signed-in user (no transformer: the body is the input). */
export async function trpcCall<T>(url: string, cookie: string, procedure: string, input: unknown, kind: 'query' | 'mutation' = 'mutation'): Promise<T> {
  const response =
    kind === 'mutation'
      ? await fetch(`${url}/api/trpc/${procedure}`, { method: 'POST', headers: { 'content-type': 'application/json', cookie }, body: JSON.stringify(input) })
      : await fetch(`${url}/api/trpc/${procedure}?input=${encodeURIComponent(JSON.stringify(input))}`, { headers: { cookie } });
  const body = (await response.json()) as { result?: { data: T }; error?: unknown };
  if (!body.result) throw new Error(`${procedure} failed: ${JSON.stringify(body.error)}`);
  return body.result.data;
}
