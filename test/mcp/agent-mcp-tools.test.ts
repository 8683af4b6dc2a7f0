import { randomBytes, randomUUID } from 'node:crypto';
import { installFlowAgent, startSdkMcpServer, useTestDatabase, type SdkMcpServer } from '@service/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchAccessToken, installExampleAgents } from '../helpers/a2a.ts';
import { mcpEnv, startMcpHttp } from '../helpers/mcp-process.ts';
import { signInCookie, startService, trpcCall, type RunningService } from '../helpers/service-process.ts';

/**
 * Tools of MCP servers in an agent's LLM step, on the built service with its runtime process: the
 * project's own standalone MCP server (reached with OAuth client credentials issued by the
 * service, found through the server's protected-resource metadata) and a third party's server
 * built with the MCP SDK (a bearer token), both registered by an admin over tRPC.
 */
const t = useTestDatabase();
const masterKey = randomBytes(32).toString('base64');
const ADMIN = { email: 'admin@acme.test', password: 'a long admin password 123' };
const DOCS_TOKEN = 'docs-token-abcdefghijklmnop';
let service: RunningService;
let standalone: Awaited<ReturnType<typeof startMcpHttp>>;

let docs: SdkMcpServer;
let cookie: string;
let token: string;

beforeAll(async () => {
  await installExampleAgents(t.db, '@acme');
  await installFlowAgent(t.db, '@acme', '@acme/librarian', [{ kind: 'llm', id: 'find', prompt: '{{input}}' }], [], { tools: ['mcp:self/service_extensions_search', 'mcp:docs/lookup'] });
  docs = await startSdkMcpServer({ token: DOCS_TOKEN });
  service = await startService({ mongodbUri: t.uri, env: { SERVICE_VENDOR_SCOPE: '@acme', SERVICE_MASTER_KEY: masterKey, SERVICE_A2A_HTTP_ENABLED: 'true', SERVICE_ADMIN_EMAIL: ADMIN.email, SERVICE_ADMIN_PASSWORD: ADMIN.password } });
  const standaloneEnv = mcpEnv(t.uri, { SERVICE_BASE_URL: service.url, SERVICE_MASTER_KEY: masterKey, SERVICE_VENDOR_SCOPE: '@acme' });
  standalone = await startMcpHttp(standaloneEnv);
  cookie = await signInCookie(service.url, ADMIN.email, ADMIN.password);
  // The client the service's agents present to its own MCP server: it may call the marketplace search only.
  const tools = await trpcCall<{ client: { clientId: string }; clientSecret: string }>(service.url, cookie, 'a2a.clients.register', { name: 'Agents of this instance', allowedAgents: [], permissions: [], allowedPrimitives: ['service_extensions_search'] });
  const caller = await trpcCall<{ client: { clientId: string }; clientSecret: string }>(service.url, cookie, 'a2a.clients.register', { name: 'Caller', allowedAgents: ['*'], permissions: ['list', 'read', 'execute'] });
  token = await fetchAccessToken(`${service.url}/api/oauth/token`, caller.client.clientId, caller.clientSecret);
  const self = await trpcCall<{ tools: { name: string }[]; lastError: unknown }>(service.url, cookie, 'mcp.servers.register', { id: 'self', name: 'This instance', url: standalone.url, auth: { kind: 'oauth', clientId: tools.client.clientId, clientSecret: tools.clientSecret, issuer: service.url }, agents: ['@acme/librarian'] });
  expect(self.lastError).toBeNull();
  const third = await trpcCall<{ lastError: unknown }>(service.url, cookie, 'mcp.servers.register', { id: 'docs', name: 'Docs search', url: docs.url, auth: { kind: 'bearer', token: DOCS_TOKEN }, agents: ['*'] });
  expect(third.lastError).toBeNull();
}, 120_000);

afterAll(async () => {
  await standalone?.stop();
  await service?.stop();
  await docs?.close();
});

describe("an agent calling the tools of MCP servers, on the built service", () => {
  it('lists what each server offers to the admin, as the server described it', async () => {
    const servers = await trpcCall<{ id: string; tools: { name: string; readOnlyHint: boolean }[] }[]>(service.url, cookie, 'mcp.servers.list', {}, 'query');
    const self = servers.find((server) => server.id === 'self')!;
    // The standalone server shows this client only the primitive it was granted.
    expect(self.tools.map((tool) => [tool.name, tool.readOnlyHint])).toEqual([['service_extensions_search', true]]);
    expect(servers.find((server) => server.id === 'docs')!.tools.map((tool) => tool.name)).toEqual(['lookup', 'delete_page', 'fail']);
  });

  it('calls the standalone MCP server of this project and the SDK server in one LLM step, and answers', async () => {
    const text = ['use mcp__self__service_extensions_search with {"query":"editorial"}', 'use mcp__docs__lookup with {"query":"approvals"}'].join('\n');
    const response = await fetch(`${service.url}/api/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0', authorization: `Bearer ${token}`, 'a2a-extensions': 'urn:service:a2a-extension:tool-calls:v1' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }], metadata: { skillId: '@acme/librarian' } } } }),
    });
    const { result } = (await response.json()) as { result: { task: { id: string; status: { state: string }; artifacts: { parts: { text: string }[] }[] } } };
    expect(result.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(result.task.artifacts[0]!.parts[0]!.text).toBe('[scripted] mcp__docs__lookup answered: {"hits":["approvals: first page","approvals: second page"]}');
    const results = (await t.db.models.RunEvent.find({ runId: result.task.id }).sort({ seq: 1 }).lean()).map((row) => JSON.parse(row.event as string) as { tool?: { phase: string; tool: string; outcome?: string; output?: unknown } }).flatMap((event) => (event.tool?.phase === 'result' ? [event.tool] : []));
    expect(results).toEqual([
      // This project's MCP server gives structured results as `{ result }` (its output schemas say so).
      expect.objectContaining({ tool: 'mcp:self/service_extensions_search', outcome: 'ok', output: { result: [expect.objectContaining({ packageName: '@acme/editorial-review' })] } }),
      expect.objectContaining({ tool: 'mcp:docs/lookup', outcome: 'ok', output: { hits: ['approvals: first page', 'approvals: second page'] } }),
    ]);
    expect(docs.calls.at(-1)!.meta).toEqual({ 'service/idempotency-key': expect.stringMatching(/^[a-f0-9]{32}$/) });
  });

  it('keeps the credentials sealed: neither the bearer token nor the client secret is in the stored record', async () => {
    const rows = await t.db.models.McpServer.find().lean();
    expect(rows.map((row) => row._id).sort()).toEqual(['docs', 'self']);
    expect(JSON.stringify(rows)).not.toContain(DOCS_TOKEN);
    expect(rows.find((row) => row._id === 'self')!.clientSecretSealed).toMatch(/^sealed\.v1\./);
  });
});

