import { execFile } from 'node:child_process';
import http_ from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Services } from '@service/core';
import { testServices, useTestDatabase } from '@service/core/testing';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installExampleAgents } from '../helpers/a2a.ts';
import { launchChromium } from '../helpers/browser.ts';
import { rawRequest } from '../helpers/raw-http.ts';
import { cleanup, INSPECTOR, MCP_BIN, mcpEnv, startMcpHttp } from '../helpers/mcp-process.ts';
import { startService, type RunningService } from '../helpers/service-process.ts';

const execFileAsync = promisify(execFile);

const t = useTestDatabase();
const admin = { type: 'ui', id: 'admin', email: 'a@acme.test', role: 'admin' } as const;
let services: Services;
let full: { clientId: string; clientSecret: string; token: string };
let noGrant: { token: string };
let env: Record<string, string>;
let http: { url: string; stop(): Promise<void> };
let web: RunningService;

beforeAll(async () => {
  await installExampleAgents(t.db, '@acme', ['summarizer']);
  services = testServices(t.db, { SERVICE_VENDOR_SCOPE: '@acme' });
  const granted = await services.oauth.clients.register(admin, { name: 'mcp', allowedAgents: [], permissions: [], allowedPrimitives: ['*'] });
  full = { clientId: granted.client.clientId, clientSecret: granted.clientSecret, token: (await services.oauth.tokens.issue(granted.client)).access_token };
  const bare = await services.oauth.clients.register(admin, { name: 'no grant', allowedAgents: ['*'], permissions: ['list', 'read', 'execute'] });
  noGrant = { token: (await services.oauth.tokens.issue(bare.client)).access_token };
  env = mcpEnv(t.uri, { SERVICE_VENDOR_SCOPE: '@acme' });
  [http, web] = await Promise.all([startMcpHttp(env), startService({ mongodbUri: t.uri, env: { SERVICE_VENDOR_SCOPE: '@acme', SERVICE_BASE_URL: 'http://127.0.0.1:3999', SERVICE_MASTER_KEY: env.SERVICE_MASTER_KEY! } })]);
});

afterAll(async () => {
  await Promise.all([http?.stop(), web?.stop()]);
  if (env) cleanup(env);
});

async function connectHttp(url: string, token: string): Promise<Client> {
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

async function expectPrimitives(client: Client) {
  const { tools } = await client.listTools();
  const search = tools.find((tool) => tool.name === 'service_extensions_search');
  expect(search).toMatchObject({
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    inputSchema: { type: 'object', properties: { query: expect.any(Object) } },
    outputSchema: { type: 'object', properties: { result: { type: 'array', items: { type: 'object', properties: { packageName: { type: 'string' } } } } } },
  });
  // Every tool says what it answers; the SDK client checks each structured result against it.
  expect(tools.filter((tool) => !tool.outputSchema).map((tool) => tool.name)).toEqual([]);
  expect(tools.map((tool) => tool.name).sort()).toEqual(services.primitives.list().map((p) => p.name).sort());
  const result = await client.callTool({ name: 'service_extensions_search', arguments: { query: 'summar' } });
  expect(result.isError).toBeFalsy();
  expect(JSON.parse((result.content as { text: string }[])[0]!.text)).toEqual([expect.objectContaining({ packageName: '@acme/summarizer', visibility: 'public' })]);
}

/** The Inspector's CLI, connected by `target`, lists every primitive and calls one; it returns each time. */
async function expectInspectorAnswers(target: string[]) {
  const inspector = async (...args: string[]) => JSON.parse((await execFileAsync(INSPECTOR, [...target, ...args], { encoding: 'utf8', timeout: 60_000 })).stdout) as unknown;
  const listed = (await inspector('--method', 'tools/list')) as { tools: { name: string }[] };
  expect(listed.tools.map((tool) => tool.name).sort()).toEqual(services.primitives.list().map((p) => p.name).sort());
  const called = (await inspector('--method', 'tools/call', '--tool-name', 'service_extensions_search', '--tool-arg', 'query=summar')) as { content: { text: string }[]; isError?: boolean };
  expect(called.isError).toBeFalsy();
  expect(JSON.parse(called.content[0]!.text)).toEqual([expect.objectContaining({ packageName: '@acme/summarizer' })]);
}

describe('MCP', () => {
  it('over stdio (the real mcp-server process), authenticated with a registered client', async () => {
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [MCP_BIN, '--stdio'], env: { ...env, SERVICE_MCP_CLIENT_ID: full.clientId, SERVICE_MCP_CLIENT_SECRET: full.clientSecret }, stderr: 'pipe' }));
    try {
      await expectPrimitives(client);
    } finally {
      await client.close();
    }
  });

  it('over HTTP, standalone and mounted at /api/mcp', async () => {
    for (const url of [http.url, `${web.url}/api/mcp`]) {
      const client = await connectHttp(url, full.token);
      try {
        await expectPrimitives(client);
      } finally {
        await client.close();
      }
    }
  });

  it('answers a browser-based client on another origin (CORS), standalone and mounted: Chromium lets the page read the answer and the 401 challenge', async () => {
    const page = http_.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>a browser MCP client</title>'));
    await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
    const browser = await launchChromium();
    try {
      const tab = await browser.newPage();
      // Another origin than either endpoint: another port.
      await tab.goto(`http://127.0.0.1:${(page.address() as AddressInfo).port}/`);
      for (const url of [http.url, `${web.url}/api/mcp`]) {
        const answer = await tab.evaluate(
          async ({ url, token }) => {
            const call = (headers: Record<string, string>) =>
              fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18', ...headers }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'page', version: '1.0.0' } } }) });
            const refused = await call({});
            const accepted = await call({ authorization: `Bearer ${token}` });
            return { refused: { status: refused.status, challenge: refused.headers.get('www-authenticate') }, accepted: { status: accepted.status, body: await accepted.json() } };
          },
          { url, token: full.token },
        );
        expect(answer.refused, url).toEqual({ status: 401, challenge: expect.stringMatching(/^Bearer resource_metadata="/) });
        expect(answer.accepted, url).toMatchObject({ status: 200, body: { result: { serverInfo: { name: expect.any(String) } } } });
      }
    } finally {
      await browser.close();
      await new Promise<void>((resolve) => page.close(() => resolve()));
    }
  }, 60_000);

  it('answers the MCP Inspector CLI (current major, on the project’s Node) over HTTP with a bearer header', async () => {
    for (const url of [http.url, `${web.url}/api/mcp`]) {
      await expectInspectorAnswers(['--cli', url, '--transport', 'http', '--header', `Authorization: Bearer ${full.token}`]);
    }
  });

  it('answers the MCP Inspector CLI over stdio, which returns once it is done', async () => {
    // The server entry as a desktop client's config names it; the credentials in its env, not in argv.
    const config = path.join(env.SERVICE_DATA_DIR!, 'inspector.json');
    writeFileSync(config, JSON.stringify({ mcpServers: { service: { command: process.execPath, args: [MCP_BIN, '--stdio'], env: { ...env, SERVICE_MCP_CLIENT_ID: full.clientId, SERVICE_MCP_CLIENT_SECRET: full.clientSecret } } } }), { mode: 0o600 });
    await expectInspectorAnswers(['--cli', '--config', config, '--server', 'service']);
  });

  it('refuses a request naming another host (DNS rebinding) before reading its token', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
    for (const url of [http.url, `${web.url}/api/mcp`]) {
      // fetch sets Host from the URL; a raw request names the rebinding attacker's host.
      const { port } = new URL(url);
      const answer = await rawRequest(url, { method: 'POST', headers: { host: `attacker.example:${port}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${full.token}` }, body });
      expect(answer.status, url).toBe(403);
      expect(JSON.parse(answer.body)).toMatchObject({ error: { message: `Invalid Host header: attacker.example:${port}` } });
    }
  });

  it('answers GET (the SSE poll of idle clients) with 405 Allow: POST, standalone and mounted, token or not', async () => {
    for (const url of [http.url, `${web.url}/api/mcp`]) {
      for (const headers of [{ accept: 'text/event-stream', authorization: `Bearer ${full.token}` }, { accept: 'text/event-stream' }] as Record<string, string>[]) {
        const answer = await fetch(url, { headers });
        expect(answer.status, url).toBe(405);
        expect(answer.headers.get('allow'), url).toBe('POST');
        await answer.body?.cancel();
      }
    }
  });

  it('refuses no token, an expired token and a widget API key with 401', async () => {
    const current = await services.oauth.keys.current();
    const expired = await new SignJWT({ client_id: full.clientId })
      .setProtectedHeader({ alg: 'ES256', kid: current.kid, typ: 'at+jwt' })
      .setIssuer('http://127.0.0.1:3999')
      .setAudience('http://127.0.0.1:3999')
      .setSubject(full.clientId)
      .setIssuedAt(Math.floor(Date.now() / 1000) - 1200)
      .setExpirationTime(Math.floor(Date.now() / 1000) - 600)
      .sign(current.privateKey);
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
    for (const url of [http.url, `${web.url}/api/mcp`]) {
      for (const authorization of [null, `Bearer ${expired}`, 'Bearer wk_cms_b_widget_key_not_a_jwt']) {
        const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(authorization ? { authorization } : {}) }, body });
        expect(response.status, `${url} ${authorization?.slice(0, 12)}`).toBe(401);
        expect(response.headers.get('www-authenticate')).toMatch(/^Bearer /);
      }
    }
  });

  it('lists no tools to a client without grants, and answers its call with a tool error, not data', async () => {
    const client = await connectHttp(http.url, noGrant.token);
    try {
      expect((await client.listTools()).tools).toEqual([]);
      const result = await client.callTool({ name: 'service_extensions_search', arguments: { query: 'summar' } });
      expect(result.isError).toBe(true);
      expect((result.content as { text: string }[])[0]!.text).toBe('FORBIDDEN: You do not have access to this primitive');
    } finally {
      await client.close();
    }
  });
});
