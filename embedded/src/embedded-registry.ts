import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { EmbeddedLogger, PasswordSealer } from './host.ts';
import { findFreePort, isPortFree } from './ports.ts';
import { spawnTied, stopTied } from './tied-child.ts';

export interface EmbeddedRegistry {
  /** `http://127.0.0.1:<port>/` */
  url: string;
  /** An npm token of the registry's one user, for publishing and reading. */
  token: string;
  /** Settles when Verdaccio's process has exited, for whatever reason. */
  exited: Promise<void>;
  stop(): Promise<void>;
  /** For the process's `exit` handler. */
  stopSync(): void;
}

/** What is kept beside the storage between starts; the password is sealed. */
interface RegistryState {
  port: number;
  user: string;
  passwordSealed: string;
  /** Verdaccio's own process (for operators and tests; nothing relies on it). */
  pid?: number;
}

const USER = 'service';
const PASSWORD_LABEL = 'embedded-registry.password';

function verdaccioBin(): string {
  const require = createRequire(import.meta.url);
  return path.join(path.dirname(require.resolve('verdaccio/package.json')), 'bin', 'verdaccio');
}

/**
 * A Verdaccio under the data directory (`<dataDir>/registry`: config, storage, users) as a child
 * process on loopback, for the embedded default: a fresh instance publishes and pulls its first
 * agents with nothing to set up. Nothing leaves the machine (no uplinks). The next start reuses
 * the storage, the user and, when it is free, the port. It is tied to this process: it ends when
 * this process ends, however it ends (tied-child.ts).
 */
export async function startEmbeddedRegistry(options: { dataDir: string; sealer: PasswordSealer; logger: EmbeddedLogger }): Promise<EmbeddedRegistry> {
  const dir = path.join(options.dataDir, 'registry');
  mkdirSync(path.join(dir, 'storage'), { recursive: true, mode: 0o700 });
  const statePath = path.join(dir, 'state.json');
  const previous = existsSync(statePath) ? (JSON.parse(readFileSync(statePath, 'utf8')) as RegistryState) : null;
  const password = previous ? options.sealer.open(previous.passwordSealed, PASSWORD_LABEL) : randomBytes(24).toString('base64url');
  const config = {
    storage: path.join(dir, 'storage'),
    // One user, ours: nobody else can sign up.
    auth: { htpasswd: { file: path.join(dir, 'htpasswd'), max_users: 1 } },
    uplinks: {},
    packages: { '@*/*': { access: '$all', publish: '$authenticated' }, '**': { access: '$all', publish: '$authenticated' } },
    web: { enable: false },
    log: { type: 'stdout', format: 'json', level: 'error' },
    publish: { allow_offline: true },
    max_body_size: '20mb',
  };
  // JSON is YAML: Verdaccio reads this as its config.yaml.
  writeFileSync(path.join(dir, 'config.yaml'), JSON.stringify(config, null, 2), { mode: 0o600 });

  let child: ChildProcess | undefined;
  let childPid = 0;
  let port = 0;
  let output = '';
  for (let attempt = 0; attempt < 3 && !child; attempt++) {
    port = attempt === 0 && previous && (await isPortFree('127.0.0.1', previous.port)) ? previous.port : await findFreePort();
    const tied = spawnTied(process.execPath, [verdaccioBin(), '--config', path.join(dir, 'config.yaml'), '--listen', `127.0.0.1:${port}`], { stdout: 'pipe', stderr: 'pipe' });
    const candidate = tied.child;
    candidate.stdout?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
    candidate.stderr?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
    if (await answers(`http://127.0.0.1:${port}/-/ping`, candidate)) {
      child = candidate;
      childPid = await tied.pid;
    }
    else void stopTied(candidate, 1_000);
  }
  if (!child) throw new Error(`the embedded registry (Verdaccio) did not start:\n${output}`);
  const url = `http://127.0.0.1:${port}/`;

  // Creates the user on the first start; later starts log in as it (Verdaccio answers an unauthenticated
  // PUT for an existing user with 409). Either way the answer carries a token.
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (previous) headers.authorization = `Basic ${Buffer.from(`${USER}:${password}`).toString('base64')}`;
  const response = await fetch(`${url}-/user/org.couchdb.user:${USER}`, {
    method: 'PUT',
    headers,
    body: JSON.stringify({ name: USER, password }),
  });
  const body = (await response.json().catch(() => ({}))) as { token?: string; error?: string };
  if (!response.ok || !body.token) {
    void stopTied(child);
    throw new Error(`the embedded registry refused its user: ${response.status} ${body.error ?? ''}`);
  }
  writeFileSync(statePath, JSON.stringify({ port, user: USER, passwordSealed: options.sealer.seal(password, PASSWORD_LABEL), pid: childPid } satisfies RegistryState), { mode: 0o600 });
  options.logger.info(`embedded registry (Verdaccio) on ${url} with storage in ${path.join(dir, 'storage')}`);

  const running = child;
  return {
    url,
    token: body.token,
    exited: new Promise((resolve) => (running.exitCode !== null || running.signalCode !== null ? resolve() : running.once('exit', () => resolve()))),
    stop: () => stopTied(running),
    stopSync: () => {
      if (running.exitCode === null && running.signalCode === null) running.kill('SIGTERM');
    },
  };
}

async function answers(url: string, child: ChildProcess): Promise<boolean> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) return false;
    try {
      if ((await fetch(url, { signal: AbortSignal.timeout(1000) })).ok) return true;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
  return false;
}
