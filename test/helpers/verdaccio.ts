import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { stopChild } from './stop-child.ts';
import { findFreePort } from '@service/core/net';

const verdaccioBin = fileURLToPath(new URL('../node_modules/.bin/verdaccio', import.meta.url));

export interface PackageAccess {
  access: string;
  publish: string;
}

export interface RunningRegistry {
  url: string;
  storage: string;
  /** npm tokens of the users created at start, by name. */
  tokens: Record<string, string>;
  stop(): Promise<void>;
}

/**
 * A real Verdaccio on a free loopback port, with no uplinks (nothing leaves the machine), its
 * own storage, and the given users and package access rules.
 */
export async function startVerdaccio(options: { users: string[]; packages: Record<string, PackageAccess> }): Promise<RunningRegistry> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'verdaccio-'));
  const storage = path.join(dir, 'storage');
  const config = {
    storage,
    auth: { htpasswd: { file: path.join(dir, 'htpasswd'), max_users: 1000 } },
    uplinks: {},
    packages: options.packages,
    web: { enable: false },
    log: { type: 'stdout', format: 'json', level: 'error' },
    publish: { allow_offline: true },
  };
  // JSON is YAML, so Verdaccio reads this as its config.yaml.
  writeFileSync(path.join(dir, 'config.yaml'), JSON.stringify(config, null, 2));

  let child: ChildProcess | undefined;
  let url = '';
  let output = '';
  for (let attempt = 0; attempt < 3 && !child; attempt++) {
    const port = await findFreePort();
    url = `http://127.0.0.1:${port}/`;
    const candidate = spawn(verdaccioBin, ['--config', path.join(dir, 'config.yaml'), '--listen', `127.0.0.1:${port}`], { stdio: ['ignore', 'pipe', 'pipe'] });
    candidate.stdout?.on('data', (c: Buffer) => (output += c.toString()));
    candidate.stderr?.on('data', (c: Buffer) => (output += c.toString()));
    if (await waitForPing(url, candidate)) child = candidate;
    else candidate.kill('SIGKILL');
  }
  if (!child) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`verdaccio did not start:\n${output}`);
  }

  const tokens: Record<string, string> = {};
  for (const user of options.users) {
    const response = await fetch(`${url}-/user/org.couchdb.user:${encodeURIComponent(user)}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: user, password: randomBytes(12).toString('base64url') }),
    });
    const body = (await response.json()) as { token?: string };
    if (!response.ok || !body.token) throw new Error(`could not create verdaccio user ${user}: ${response.status} ${JSON.stringify(body)}`);
    tokens[user] = body.token;
  }

  const running = child;
  return {
    url,
    storage,
    tokens,
    stop: () => stopChild(running, dir),
  };
}

async function waitForPing(url: string, child: ChildProcess): Promise<boolean> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) return false;
    try {
      if ((await fetch(`${url}-/ping`)).ok) return true;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 150));
  }
  return false;
}
