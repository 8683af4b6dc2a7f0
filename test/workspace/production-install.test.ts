/**
 * The production install (docs/operations.md, "Production install"): the built checkout without
 * node_modules, then `pnpm install --prod` filtered to the two servers, from the pnpm store. It
 * leaves out the embedded default's servers (Verdaccio, mongodb-memory-server), serves against
 * MONGODB_URI, and without MONGODB_URI says what to do instead of starting half a service.
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestDatabase } from '@service/core/testing';
import { waitForOutput } from '../helpers/child-output.ts';
import { stopChild } from '../helpers/stop-child.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
/** The production install command of docs/operations.md, offline: everything comes from the store the full install filled. */
const PRODUCTION_INSTALL = ['install', '--frozen-lockfile', '--prod', '--offline', '--filter-prod', '@service/web...', '--filter-prod', '@service/mcp-server...'];
/** The packages the embedded default brings, which a production install must not. */
const EMBEDDED_ONLY = /^(verdaccio|@verdaccio\+[^@]+|mongodb-memory-server|mongodb-memory-server-core)@/;

const database = useTestDatabase();
let tree = '';
const scratch: string[] = [];

/** A scratch directory removed after the file. */
function scratchDir(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  scratch.push(dir);
  return dir;
}

/** Only the machine's basics: nothing of the pnpm run that started the tests leaks into the install or the server. */
const baseEnv = () => Object.fromEntries(Object.entries(process.env).filter(([name]) => ['PATH', 'HOME', 'TMPDIR', 'XDG_DATA_HOME', 'XDG_CACHE_HOME', 'XDG_CONFIG_HOME'].includes(name)));

/** The built server of the installed tree, as production starts it (`node web/build/server.js`, on the machine's Node 24). */
function startServer(env: Record<string, string>) {
  const dataDir = scratchDir('service-prod-data-');
  const child = spawn(process.execPath, ['build/server.js'], {
    cwd: path.join(tree, 'web'),
    env: { ...baseEnv(), HOST: '127.0.0.1', PORT: '0', SERVICE_DATA_DIR: dataDir, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return { child, dataDir };
}

beforeAll(() => {
  if (!existsSync(path.join(root, 'web/build/server.js'))) {
    throw new Error('the build is missing: run `pnpm build` first (the root `pnpm test` does)');
  }
  // What a build machine ships: the checkout with its built files, without any node_modules.
  tree = scratchDir('service-prod-install-');
  const skipped = new Set(['.git', '.data', path.join('test', '.artifacts')]);
  cpSync(root, tree, {
    recursive: true,
    filter: (source) => {
      const relative = path.relative(root, source);
      return path.basename(source) !== 'node_modules' && !skipped.has(relative);
    },
  });
  try {
    execFileSync('pnpm', PRODUCTION_INSTALL, { cwd: tree, env: baseEnv(), stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`pnpm ${PRODUCTION_INSTALL.join(' ')} failed:\n${stdout ?? ''}${stderr ?? ''}`);
  }
}, 300_000);

afterAll(() => {
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

describe('the production install', () => {
  it('leaves out Verdaccio and mongodb-memory-server, and the package that brings them', () => {
    const installed = readdirSync(path.join(tree, 'node_modules/.pnpm'));
    expect(installed.some((name) => name.startsWith('mongoose@')), 'the service’s own dependencies are installed').toBe(true);
    expect(installed.filter((name) => EMBEDDED_ONLY.test(name))).toEqual([]);
    expect(existsSync(path.join(tree, 'core/node_modules/@service/embedded'))).toBe(false);
  });

  it('serves in production against MONGODB_URI and answers /healthz', async () => {
    const { child } = startServer({
      NODE_ENV: 'production',
      MONGODB_URI: database.uri,
      SERVICE_BASE_URL: 'https://agents.example.com',
      SERVICE_MASTER_KEY: randomBytes(32).toString('base64'),
      SERVICE_SESSION_SECRET: randomBytes(32).toString('base64url'),
      SERVICE_BRIDGE_TOKEN: randomBytes(32).toString('base64url'),
    });
    try {
      const { value: url, output } = await waitForOutput(child, /service listening on (http:\/\/[^\s"]+)/, 'the production service', 60_000);
      const response = await fetch(`${url}/healthz`);
      expect(response.status, output()).toBe(200);
    } finally {
      await stopChild(child);
    }
  }, 90_000);

  it('without MONGODB_URI names it and the full install, writes nothing, and exits non-zero', async () => {
    const { child, dataDir } = startServer({});
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.resume();
    const exit = await new Promise<number | string>((resolve) => {
      // A process still running after this long has started the embedded default instead of refusing it.
      const timer = setTimeout(() => resolve('still running'), 30_000);
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        resolve(code ?? signal ?? 'unknown');
      });
    });
    await stopChild(child);
    expect(exit).toBe(1);
    expect(stderr).toContain('MONGODB_URI: is unset');
    expect(stderr).toContain('`pnpm install --frozen-lockfile`');
    expect(stderr).toContain('@service/embedded');
    expect(readdirSync(dataDir)).toEqual([]);
  }, 60_000);
});
