/**
 * The project runs on the Node its `engines` names, whatever Node the machine has: every pnpm
 * script finds the checkout's Node first on its PATH, and an entry point started by an older Node
 * (an MCP client's own `node`, say) stops with a message that names the Node to use.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { PROJECT_NODE } from '@service/core/node-engine';

const root = fileURLToPath(new URL('../../', import.meta.url));
const packages = ['.', 'core', 'embedded', 'web', 'mcp-server', 'widget', 'test'];
const enginesOf = (dir: string) =>
  (JSON.parse(readFileSync(path.join(root, dir, 'package.json'), 'utf8')) as { engines?: { node?: string } }).engines?.node;
const required = enginesOf('.')!;

/** A `node` on the PATH without the checkout's bin folders: the machine's own Node, if it has one. */
function machineNode(): { path: string; version: string } | null {
  const dirs = (process.env.PATH ?? '').split(path.delimiter).filter((dir) => !dir.includes('node_modules'));
  for (const dir of dirs) {
    const candidate = path.join(dir, 'node');
    const run = spawnSync(candidate, ['-p', 'process.versions.node'], { encoding: 'utf8' });
    if (run.status === 0) return { path: candidate, version: run.stdout.trim() };
  }
  return null;
}
const olderNode = (() => {
  const found = machineNode();
  return found && !semver.satisfies(found.version, required) ? found : null;
})();

describe('the Node the project runs on', () => {
  it('is named once: every workspace package declares the root’s engines range', () => {
    expect(required).toMatch(/^>=24\.\d+\.\d+$/);
    for (const dir of packages) expect(enginesOf(dir), `${dir}/package.json engines.node`).toBe(required);
  });

  it('is the one the root installs, and the one pnpm checks engines against', () => {
    const installed = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> }).devDependencies.node!;
    expect(semver.satisfies(installed, required), `the node dev dependency ${installed}`).toBe(true);
    const workspace = parse(readFileSync(path.join(root, 'pnpm-workspace.yaml'), 'utf8')) as { nodeVersion?: string; onlyBuiltDependencies?: string[] };
    expect(workspace.nodeVersion).toBe(installed);
    expect(workspace.onlyBuiltDependencies).toContain('node');
  });

  it('runs the tests', () => {
    expect(semver.satisfies(process.versions.node, required), `tests run on Node ${process.versions.node}`).toBe(true);
  });

  it('is the `node` every package’s pnpm scripts find first on their PATH', () => {
    for (const dir of packages) {
      const version = execFileSync('pnpm', ['--silent', 'exec', 'node', '-p', 'process.versions.node'], {
        cwd: path.join(root, dir),
        encoding: 'utf8',
      }).trim();
      expect(semver.satisfies(version, required), `${dir}: scripts run on Node ${version}`).toBe(true);
    }
    const binary = execFileSync(PROJECT_NODE, ['-p', 'process.execPath'], { encoding: 'utf8' }).trim();
    expect(semver.satisfies(execFileSync(binary, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim(), required)).toBe(true);
  });

  it('is started by scripts as the binary itself, so signals reach it (no shell shim in between)', async () => {
    const child = spawn(path.join(root, 'node_modules/.bin/node'), ['-e', 'console.log(process.pid); setInterval(() => {}, 1000)'], { stdio: ['ignore', 'pipe', 'inherit'] });
    const reported = await new Promise<number>((resolve) => child.stdout!.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim()))));
    const exited = new Promise<string | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
    child.kill('SIGTERM');
    expect(await exited).toBe('SIGTERM');
    // A shim would be a shell whose node child has another pid, and would outlive the signal.
    expect(reported).toBe(child.pid);
  });

  it.runIf(olderNode)(`refuses to start the service, the MCP server or a script on an older Node, naming the Node to use${olderNode ? '' : ` (skipped: no Node older than ${required} on the PATH besides the checkout's)`}`, () => {
    const entries: [string, string[]][] = [
      ['mcp-server', ['bin/service-mcp.js', '--stdio']],
      ['web', ['build/server.js']],
      ['web', ['--import', 'tsx', 'scripts/admin-create.ts', '--email', 'a@example.com']],
    ];
    for (const [dir, args] of entries) {
      const run = spawnSync(olderNode!.path, args, { cwd: path.join(root, dir), encoding: 'utf8', timeout: 30_000, env: { ...process.env, SERVICE_DATA_DIR: path.join(tmpdir(), 'node-engine-never-used') } });
      expect(run.status, `${dir} ${args.join(' ')}: ${run.stderr}`).toBe(1);
      expect(run.stderr).toContain(`This program needs Node ${required}; it was started by Node ${olderNode!.version}`);
      expect(run.stderr).toContain(PROJECT_NODE);
    }
  });
});
