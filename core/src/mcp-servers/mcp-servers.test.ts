import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reviewSource } from '../agents/index.ts';
import type { Services } from '../index.ts';
import type { RunEvent, ToolActivity } from '../runs/index.ts';
import { installExampleAgents, installFlowAgent, startSdkMcpServer, testServices, useTestDatabase, type SdkMcpServer } from '../testing/index.ts';
import { textMessage } from '../use-cases/index.ts';

const t = useTestDatabase();
let services: Services;
let docs: SdkMcpServer;
const admin = { type: 'ui', id: 'admin-mcp', email: 'admin@acme.test', role: 'admin' } as const;
const TOKEN = 'docs-token-0123456789';

beforeAll(async () => {
  docs = await startSdkMcpServer({ token: TOKEN });
  await installExampleAgents(t.db, '@acme');
  await installFlowAgent(t.db, '@acme', '@acme/librarian', [{ kind: 'llm', id: 'find', prompt: '{{input}}' }], [], { tools: ['mcp:docs/lookup', 'mcp:docs/delete_page', { tool: 'mcp:docs/fail', approval: 'never' }] });
  await installFlowAgent(t.db, '@acme', '@acme/stranger', [{ kind: 'llm', id: 'find', prompt: '{{input}}' }], [], { tools: ['mcp:docs/lookup'] });
  services = testServices(t.db);
});

afterAll(async () => {
  await services?.mcpServers.close();
  await docs?.close();
});

const activities = (events: RunEvent[]) => events.flatMap((event): ToolActivity[] => (event.type === 'status' && event.tool ? [event.tool] : []));

async function run(agent: string, text: string) {
  const { run: started, execution } = await services.useCases.runs.start(admin, { agent, message: textMessage(text) });
  await execution;
  return { run: (await services.runs.get(started.id))!, events: (await services.eventLog.readAfter(started.id, 0)).map((stored) => stored.event) };
}

describe('MCP servers an admin registers, whose tools agents call', () => {
  it('lists the tools of a server with their annotations (MCP defaults where it says nothing), its token sealed at rest', async () => {
    const server = await services.mcpServers.register(admin, { id: 'docs', name: 'Docs search', url: docs.url, auth: { kind: 'bearer', token: TOKEN }, agents: ['@acme/librarian'] });
    expect(server.lastError).toBeNull();
    expect(server.tools.map((tool) => [tool.name, tool.readOnlyHint, tool.destructiveHint])).toEqual([
      ['lookup', true, false],
      ['delete_page', false, true],
      ['fail', false, true],
    ]);
    expect(server.tools[0]!.inputSchema).toMatchObject({ type: 'object', properties: { query: { type: 'string' } } });
    const row = await t.db.models.McpServer.findById('docs').lean();
    expect(row!.bearerSealed).toMatch(/^sealed\.v1\./);
    expect(JSON.stringify(row)).not.toContain(TOKEN);
  });

  it('keeps a server whose token is refused, saying why', async () => {
    const refused = await services.mcpServers.register(admin, { id: 'docs-wrong', name: 'Docs (wrong token)', url: docs.url, auth: { kind: 'bearer', token: 'not-the-token' }, agents: ['*'] });
    expect(refused.tools).toEqual([]);
    expect(refused.lastError?.message).toMatch(/invalid_token|401/);
    await services.mcpServers.remove(admin, 'docs-wrong');
  });

  it('calls a read-only tool without asking and gives the model its structured answer, with the call\'s key in _meta', async () => {
    const { run: done, events } = await run('@acme/librarian', 'use mcp__docs__lookup with {"query":"tools"}');
    expect(done.state).toBe('completed');
    const [call, result] = activities(events);
    expect(result).toMatchObject({ phase: 'result', kind: 'mcp', tool: 'mcp:docs/lookup', outcome: 'ok', output: { hits: ['tools: first page', 'tools: second page'] } });
    expect(docs.calls.at(-1)).toEqual({ tool: 'lookup', args: { query: 'tools' }, meta: { 'service/idempotency-key': (call as { key: string }).key } });
  });

  it('asks before a tool that says nothing of itself (MCP takes it as destructive), and tells the model of a tool error', async () => {
    const paused = await run('@acme/librarian', 'use mcp__docs__delete_page with {"page":"old"}');
    expect(paused.run.interrupt?.tool).toMatchObject({ tool: 'mcp:docs/delete_page', kind: 'mcp', arguments: { page: 'old' } });
    const failing = await run('@acme/librarian', 'use mcp__docs__fail with {}');
    expect(activities(failing.events).at(-1)).toMatchObject({ outcome: 'error', error: expect.stringContaining('the index is being rebuilt') });
  });

  it('refuses its tools to an agent the server is not enabled for', async () => {
    const { run: failed } = await run('@acme/stranger', 'use mcp__docs__lookup with {"query":"x"}');
    expect(failed.state).toBe('failed');
    expect(failed.status.message?.parts[0]).toMatchObject({ text: expect.stringContaining('not enabled for @acme/stranger') });
  });

  it('has review name a tool no registered server lists, a server nobody registered and a primitive that does not exist', async () => {
    const source = {
      manifest: { name: '@acme/checked', version: '1.0.0', service: { kind: 'agent', flow: 'flow.json' } },
      flow: { id: 'checked', name: 'Checked', description: 'x', type: 'leaf', instructions: 'x', tools: ['mcp:docs/nothing', 'mcp:ghost/lookup', 'cms_b_nothing', 'mcp:docs/lookup', 'cms_b_post_get'] },
    };
    const { findings } = reviewSource(source, await services.extensions.reviewContext('@acme'));
    expect(findings.map((finding) => finding.reason)).toEqual([
      'the MCP server "docs" lists no tool "nothing"',
      'no MCP server "ghost" is registered on this instance',
      'no connector primitive cms_b_nothing on this instance',
    ]);
  });
});
