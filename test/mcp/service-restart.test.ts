/**
 * The standalone MCP server keeps serving through a restart of the web service it joined (issue
 * 25): the service is killed, its old database port taken by someone else, and started again, so
 * its embedded database comes back elsewhere. The MCP server follows the data directory's lock
 * there; meanwhile a valid token is answered 503 (cannot be checked now), never 401.
 */
import { createServer, type Server } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchAccessToken } from '../helpers/a2a.ts';
import { registerDesktopClient, startMcpHttp } from '../helpers/mcp-process.ts';
import { startService, type RunningService } from '../helpers/service-process.ts';

const dataDir = mkdtempSync(path.join(tmpdir(), 'mcp-restart-'));
// One instance across the restart: its data directory (which keeps its generated master key) and its base URL.
const env = { SERVICE_DATA_DIR: dataDir, SERVICE_MASTER_KEY: '', SERVICE_BASE_URL: 'http://127.0.0.1:3998' };
let service: RunningService;
let client: { clientId: string; clientSecret: string };
let squatter: Server | undefined;

const lock = () => JSON.parse(readFileSync(path.join(dataDir, 'service.lock'), 'utf8')) as { pid: number; databaseUri: string };

beforeAll(async () => {
  service = await startService({ env });
  client = await registerDesktopClient(service);
}, 120_000);

afterAll(async () => {
  squatter?.close();
  await service?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** `tools/list` over HTTP with a bearer token: the status and, on 200, the number of tools. */
async function listTools(url: string, token: string): Promise<{ status: number; tools?: number }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
  const body = (await response.json().catch(() => ({}))) as { result?: { tools: unknown[] } };
  return { status: response.status, ...(body.result ? { tools: body.result.tools.length } : {}) };
}

describe('the standalone MCP server through a restart of its service', () => {
  it('follows the service’s database to its new address and never calls a valid token invalid', async () => {
    const statuses = new Set<number>();
    const mcp = await startMcpHttp({ PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', SERVICE_DATA_DIR: dataDir });
    try {
      const token = await fetchAccessToken(`${service.url}/api/oauth/token`, client.clientId, client.clientSecret);
      expect((await listTools(mcp.url, token)).tools).toBeGreaterThan(0);

      const oldPort = Number(new URL(lock().databaseUri).port);
      await service.kill();
      // Its database ends with it; then someone else takes its port, so the next one listens elsewhere.
      squatter = await new Promise<Server>((resolve, reject) => {
        const deadline = Date.now() + 10_000;
        const attempt = () => {
          const server = createServer();
          server.once('error', () => (Date.now() < deadline ? setTimeout(attempt, 100) : reject(new Error(`port ${oldPort} stayed taken`))));
          server.listen(oldPort, '127.0.0.1', () => resolve(server));
        };
        attempt();
      });
      service = await startService({ env });
      expect(Number(new URL(lock().databaseUri).port)).not.toBe(oldPort);

      const fresh = await fetchAccessToken(`${service.url}/api/oauth/token`, client.clientId, client.clientSecret);
      await expect
        .poll(async () => {
          const answer = await listTools(mcp.url, fresh);
          statuses.add(answer.status);
          return answer.status;
        }, { timeout: 20_000, interval: 250 })
        .toBe(200);
      expect([...statuses].every((status) => status === 200 || status === 503), [...statuses].join(', ')).toBe(true);
    } catch (error) {
      throw new Error(`${(error as Error).message}\nstatuses: ${[...statuses].join(', ')}\nthe MCP server said:\n${mcp.output()}`);
    } finally {
      await mcp.stop();
    }
  }, 180_000);
});
