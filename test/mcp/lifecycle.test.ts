/**
 * The standalone MCP server's process as MCP clients drive it: it is the process the client
 * started (no wrapper child), and it ends, with its database connection closed, when the client
 * closes its stdin or sends a signal.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Services } from '@service/core';
import { testServices, useTestDatabase } from '@service/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, MCP_BIN, mcpEnv } from '../helpers/mcp-process.ts';

const t = useTestDatabase();
let services: Services;
let env: Record<string, string>;

beforeAll(async () => {
  services = testServices(t.db);
  const granted = await services.oauth.clients.register({ type: 'ui', id: 'admin', email: 'a@acme.test', role: 'admin' }, { name: 'desktop', allowedAgents: [], permissions: [], allowedPrimitives: ['*'] });
  env = mcpEnv(t.uri, { SERVICE_MCP_CLIENT_ID: granted.client.clientId, SERVICE_MCP_CLIENT_SECRET: granted.clientSecret });
});
afterAll(() => {
  if (env) cleanup(env);
});

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
/** The process's children, from /proc (Linux). */
const childrenOf = (pid: number) => readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
function startStdio(stdin: 'pipe' | 'ignore'): { child: ChildProcess; stderr: () => string; exited: Promise<{ code: number | null; signal: string | null }> } {
  const child = spawn(process.execPath, [MCP_BIN, '--stdio'], { env, stdio: [stdin, 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return { child, stderr: () => stderr, exited };
}

describe('the MCP server process over stdio', () => {
  it('is the process the client started, and ends by itself, cleanly, when the client closes its stdin', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [MCP_BIN, '--stdio'], env, stderr: 'pipe' });
    let stderr = '';
    transport.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const client = new Client({ name: 'lifecycle', version: '1.0.0' });
    await client.connect(transport);
    const pid = transport.pid!;
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    expect(childrenOf(pid), 'child processes of the MCP server').toBe('');

    // The SDK's close ends stdin and waits for the process to go; one that stays is signalled after
    // a grace period. The server says what stopped it, and the first reason is the one it acts on.
    await client.close();
    expect(alive(pid)).toBe(false);
    expect(stderr).toContain('mcp-server stopping: stdin closed');
    expect(stderr).not.toMatch(/mcp-server stopping: SIG|did not stop cleanly/);
  });

  it('ends by itself when its stdin is already closed (a client that exits, `< /dev/null`)', async () => {
    const run = startStdio('ignore');
    const exit = await run.exited;
    expect(exit, run.stderr()).toMatchObject({ code: 0, signal: null });
    expect(run.stderr()).toContain('mcp-server stopping: stdin closed');
  });

  it('answers a stdin line that is not JSON with a -32700 parse error and one log line, then keeps serving', async () => {
    const run = startStdio('pipe');
    let stdout = '';
    run.child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    await expect.poll(() => run.stderr(), { timeout: 15_000 }).toContain('mcp-server ready on stdio');
    run.child.stdin!.write('not json at all\n{"jsonrpc":"2.0","id":7,"method":"ping"}\n');
    await expect.poll(() => stdout.split('\n').filter(Boolean).length, { timeout: 15_000 }).toBe(2);
    const [parseError, pong] = stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line) as unknown);
    expect(parseError).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.stringContaining('Parse error') } });
    expect(pong).toEqual({ jsonrpc: '2.0', id: 7, result: {} });
    expect(run.stderr().match(/could not be read/g)).toHaveLength(1);
    expect(run.stderr()).not.toContain('not json at all');
    run.child.stdin!.end();
    expect(await run.exited).toMatchObject({ code: 0 });
  });

  it.each(['SIGTERM', 'SIGINT'] as const)('stops on %s with its database connection closed', async (signal) => {
    const run = startStdio('pipe');
    await expect.poll(() => run.stderr(), { timeout: 15_000 }).toContain('mcp-server ready on stdio');
    run.child.kill(signal);
    const exit = await run.exited;
    expect(exit, run.stderr()).toMatchObject({ code: 0, signal: null });
    expect(run.stderr()).toContain(`mcp-server stopping: ${signal}`);
    expect(run.stderr()).not.toContain('did not stop cleanly');
  });
});
