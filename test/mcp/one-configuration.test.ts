/**
 * The MCP server beside a running web service on the embedded default, configured the way a
 * desktop client's config would: only the data directory. It joins the service's database instead
 * of starting a second server on the same files, takes the service's base URL and sealed-secret
 * key from the same place, and refuses at start, naming the variable, whatever would disagree.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchAccessToken } from '../helpers/a2a.ts';
import { MCP_BIN, registerDesktopClient, startMcpHttp } from '../helpers/mcp-process.ts';
import { startService, type RunningService } from '../helpers/service-process.ts';

let service: RunningService;
let client: { clientId: string; clientSecret: string };

beforeAll(async () => {
  // No master key in the environment: the service generates it in its data directory, as `pnpm start` does.
  service = await startService({ env: { SERVICE_MASTER_KEY: '' } });
  client = await registerDesktopClient(service);
}, 120_000);

afterAll(async () => {
  await service?.stop();
});

/** What a desktop client's config sets: the data directory (and, for stdio, the client's credentials). */
const desktopEnv = (extra: Record<string, string> = {}) => ({ PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', SERVICE_DATA_DIR: service.dataDir, ...extra });

/** The MCP bin run to its refusal: exit status and what it said. */
function refusal(env: Record<string, string>, mode: '--stdio' | '--http'): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [MCP_BIN, mode, ...(mode === '--http' ? ['--port', '0'] : [])], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    }),
  );
}

describe('one configuration for the web service and the MCP server', () => {
  it('joins the running service’s embedded database over stdio: no second database server', async () => {
    const lock = JSON.parse(readFileSync(`${service.dataDir}/service.lock`, 'utf8')) as { pid: number; databaseUri: string };
    expect(lock.databaseUri).toMatch(/^mongodb:\/\/127\.0\.0\.1:\d+\//);
    const transport = new StdioClientTransport({ command: process.execPath, args: [MCP_BIN, '--stdio'], env: desktopEnv({ SERVICE_MCP_CLIENT_ID: client.clientId, SERVICE_MCP_CLIENT_SECRET: client.clientSecret }), stderr: 'pipe' });
    let stderr = '';
    transport.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const mcp = new Client({ name: 'desktop', version: '1.0.0' });
    await mcp.connect(transport);
    try {
      const result = await mcp.callTool({ name: 'service_extensions_search', arguments: { query: 'x' } });
      expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
      // Its only process is itself: no FerretDB or mongod of its own.
      expect(readFileSync(`/proc/${transport.pid}/task/${transport.pid}/children`, 'utf8').trim()).toBe('');
      expect(stderr).toContain(`using the embedded database of the service (pid ${lock.pid})`);
    } finally {
      await mcp.close();
    }
  });

  it('over HTTP takes the service’s base URL, so the service’s tokens are accepted', async () => {
    const http = await startMcpHttp(desktopEnv());
    try {
      const token = await fetchAccessToken(`${service.url}/api/oauth/token`, client.clientId, client.clientSecret);
      const mcp = new Client({ name: 'desktop', version: '1.0.0' });
      await mcp.connect(new StreamableHTTPClientTransport(new URL(http.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
      expect((await mcp.listTools()).tools.length).toBeGreaterThan(0);
      await mcp.close();
    } finally {
      await http.stop();
    }
  });

  it('refuses to start with another base URL or another master key, naming the variable', async () => {
    const wrongUrl = await refusal(desktopEnv({ SERVICE_BASE_URL: 'http://127.0.0.1:3000' }), '--http');
    expect(wrongUrl.code).toBe(1);
    expect(wrongUrl.stderr).toContain(`SERVICE_BASE_URL: is http://127.0.0.1:3000, but the service runs at ${service.url}`);

    const wrongKey = await refusal(desktopEnv({ SERVICE_MASTER_KEY: Buffer.alloc(32, 7).toString('base64'), SERVICE_MCP_CLIENT_ID: client.clientId, SERVICE_MCP_CLIENT_SECRET: client.clientSecret }), '--stdio');
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.stderr).toContain('SERVICE_MASTER_KEY: is not the key the service seals its secrets with');
  });

  it('refuses to start on a data directory no service runs on, naming MONGODB_URI, and writes nothing there', async () => {
    const empty = mkdtempSync(`${tmpdir()}/mcp-no-service-`);
    try {
      const refused = await refusal({ PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', SERVICE_DATA_DIR: empty }, '--http');
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(`MONGODB_URI: is unset and no service is running on ${empty}`);
      expect(readdirSync(empty)).toEqual([]);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('refuses a second web service on the same data directory, naming SERVICE_DATA_DIR', async () => {
    const second = await startService({ env: { SERVICE_DATA_DIR: service.dataDir, SERVICE_MASTER_KEY: '' } }).then(
      async (running) => {
        await running.stop();
        return 'started';
      },
      (error: Error) => error.message,
    );
    expect(second).toContain('SERVICE_DATA_DIR:');
    expect(second).toContain('is already served by another process');
  });
});
