import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../log/index.ts';
import { createNpmRunner } from './npm-cli.ts';

describe('the npm runner', () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });

  it('gives the npm child only what npm needs: no master key, no LLM key, no npm_config_* of a parent', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'npm-env-'));
    try {
      // A stand-in `npm` first on PATH that writes down the environment it was given.
      writeFileSync(path.join(dir, 'npm'), '#!/bin/sh\nenv > "$PWD/env.txt"\n');
      chmodSync(path.join(dir, 'npm'), 0o755);
      Object.assign(process.env, {
        PATH: `${dir}${path.delimiter}${saved.PATH ?? ''}`,
        SERVICE_MASTER_KEY: 'master-key-value',
        SERVICE_LLM_API_KEY: 'llm-key-value',
        SERVICE_SESSION_SECRET: 'session-secret-value',
        npm_config_registry: 'http://parent-registry.invalid/',
        HTTPS_PROXY: 'http://proxy.example:3128',
        no_proxy: 'localhost',
      });
      await createNpmRunner(createMemoryLogger()).run(['publish', 'x.tgz'], { cwd: dir });
      const env = readFileSync(path.join(dir, 'env.txt'), 'utf8');
      expect(env).not.toMatch(/master-key-value|llm-key-value|session-secret-value|SERVICE_|npm_config_registry/);
      expect(env).toMatch(/^PATH=/m);
      expect(env).toMatch(/^HOME=/m);
      expect(env).toContain('HTTPS_PROXY=http://proxy.example:3128');
      expect(env).toContain('no_proxy=localhost');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("given the service's proxy, sends npm through it alone: the flags, and no proxy variables of the environment", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'npm-env-'));
    try {
      writeFileSync(path.join(dir, 'npm'), '#!/bin/sh\nenv > "$PWD/env.txt"\necho "$@" > "$PWD/argv.txt"\n');
      chmodSync(path.join(dir, 'npm'), 0o755);
      Object.assign(process.env, { PATH: `${dir}${path.delimiter}${saved.PATH ?? ''}`, HTTPS_PROXY: 'http://proxy.example:3128', no_proxy: 'registry.example.com' });
      await createNpmRunner(createMemoryLogger()).run(['publish', 'x.tgz'], { cwd: dir, proxy: 'http://127.0.0.1:4000' });
      expect(readFileSync(path.join(dir, 'env.txt'), 'utf8')).not.toMatch(/proxy/i);
      expect(readFileSync(path.join(dir, 'argv.txt'), 'utf8')).toContain('--proxy=http://127.0.0.1:4000 --https-proxy=http://127.0.0.1:4000 --noproxy=');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
