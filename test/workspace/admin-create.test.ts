import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUserStore } from '@service/core/auth';
import { useTestDatabase } from '@service/core/testing';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const t = useTestDatabase();
let dataDir = '';

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'admin-create-'));
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

/** `pnpm admin:create …` from the checkout's root, as an operator types it, the password piped on stdin. */
function adminCreate(args: string[], stdin: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn('pnpm', ['admin:create', ...args], {
    cwd: root,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      MONGODB_URI: t.uri,
      SERVICE_DATA_DIR: dataDir,
      SERVICE_MASTER_KEY: randomBytes(32).toString('base64'),
      SERVICE_SESSION_SECRET: randomBytes(32).toString('base64url'),
    },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.on('error', () => undefined);
  child.stdin.end(stdin);
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

describe('pnpm admin:create', () => {
  it('creates an admin, and for an existing address says how to set a new password instead, without pnpm’s recursive-run noise', async () => {
    const created = await adminCreate(['--email', 'ops@example.com'], 'first password 123\n');
    expect(created, created.stderr).toMatchObject({ code: 0 });
    expect(created.stdout).toContain('created admin ops@example.com');

    const again = await adminCreate(['--email', 'Ops@Example.com'], 'second password 123\n');
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('ops@example.com already exists (admin); to set a new password run `pnpm admin:create --email ops@example.com --reset-password`');
    expect(again.stdout + again.stderr).not.toContain('ERR_PNPM_RECURSIVE_RUN_FIRST_FAIL');
    const users = createUserStore(t.db.models);
    await expect(users.verifyCredentials('ops@example.com', 'first password 123')).resolves.toMatchObject({ role: 'admin' });
  });

  it('--reset-password sets the password read from stdin, and refuses an unknown address', async () => {
    const reset = await adminCreate(['--email', 'ops@example.com', '--reset-password'], 'a new password 456\n');
    expect(reset, reset.stderr).toMatchObject({ code: 0 });
    expect(reset.stdout).toContain('set a new password for ops@example.com (admin)');
    expect(reset.stdout + reset.stderr).not.toContain('a new password 456');
    const users = createUserStore(t.db.models);
    await expect(users.verifyCredentials('ops@example.com', 'a new password 456')).resolves.toMatchObject({ role: 'admin' });

    const unknown = await adminCreate(['--email', 'nobody@example.com', '--reset-password'], 'whatever password 1\n');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('there is no user nobody@example.com; to create an admin run `pnpm admin:create --email nobody@example.com`');
  });
});
