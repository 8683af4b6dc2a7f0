import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { npmrcAuthKey } from '@service/core/registry';

const run = promisify(execFile);

/** `npm view <pkg> --json` as an operator would run it, with a token in a throwaway npmrc. */
export async function npmView(registryUrl: string, token: string, spec: string, routing: 'scope' | 'registry' = 'registry'): Promise<Record<string, unknown> | null> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'npm-view-'));
  try {
    writeFileSync(path.join(dir, 'npmrc'), `${npmrcAuthKey(registryUrl)}:_authToken=${token}\n`, { mode: 0o600 });
    const scope = spec.split('/')[0]!;
    const flag = routing === 'scope' ? `--${scope}:registry=${registryUrl}` : `--registry=${registryUrl}`;
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
    const { stdout } = await run('npm', ['view', spec, '--json', flag, '--userconfig', path.join(dir, 'npmrc')], { cwd: dir, env });
    return JSON.parse(stdout) as Record<string, unknown>;
  } catch (error) {
    const text = String((error as { stdout?: string }).stdout ?? '') + String((error as { stderr?: string }).stderr ?? '');
    if (/E404|E403|404 Not Found|403/.test(text)) return null;
    throw error;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
