import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { AuditLog } from '../audit/index.ts';
import { isAdmin, type Actor } from '../auth/index.ts';
import type { Sealer } from '../crypto/index.ts';
import type { McpServerRecord, Models } from '../db/index.ts';
import { DomainError } from '../errors/index.ts';
import type { OutboundHttp } from '../http/index.ts';
import type { Logger } from '../log/index.ts';

/** A tool an MCP server listed. */
export interface McpListedTool {
  name: string;
  title?: string;
  description: string;
  inputSchema: Record<string, unknown>;
  /** MCP's defaults when the server says nothing: not read-only, destructive. */
  readOnlyHint: boolean;
  destructiveHint: boolean;
}

export interface McpServerView {
  id: string;
  name: string;
  url: string;
  auth: 'none' | 'bearer' | 'oauth';
  clientId: string | null;
  issuer: string | null;
  /** The agents that may use its tools (`*`: all). */
  agents: string[];
  tools: McpListedTool[];
  listedAt: string | null;
  lastError: { at: string; message: string } | null;
}

/** How a server is reached: anonymously, with a bearer token, or with OAuth client credentials (sealed). Left out on an edit: kept. */
export type McpServerAuthInput = { kind: 'none' } | { kind: 'bearer'; token?: string } | { kind: 'oauth'; clientId: string; clientSecret?: string; issuer?: string };

export interface McpServerInput {
  id: string;
  name: string;
  url: string;
  auth: McpServerAuthInput;
  agents: string[];
}

const ID = /^[a-z0-9][a-z0-9-]{0,62}$/;
const AGENT = /^(\*|@[a-z0-9][a-z0-9._-]*\/[a-z0-9][a-z0-9._-]*)$/;
const MAX_TOOLS = 200;
/** A connection is kept this long after its last use, then opened afresh (its session may be gone). */
const IDLE_MS = 5 * 60_000;
const CALL_TIMEOUT_MS = 120_000;

const bearerLabel = (id: string) => `mcp-server.${id}.bearer`;
const secretLabel = (id: string) => `mcp-server.${id}.client-secret`;

type Row = McpServerRecord & { _id: string; updatedAt?: Date };

const problem = (path: string, reason: string) => new DomainError('VALIDATION_FAILED', `${path}: ${reason}`, { details: [{ path, reason }] });

/**
 * The external MCP servers an admin registered for agents' tools, reached over Streamable HTTP
 * through the one outbound client (its address policy, timeouts and size caps), with their
 * credentials sealed at rest and opened only to connect. Each lists its tools when registered
 * or refreshed; agents' tool calls go through a connection kept per server.
 */
export function createMcpServers(deps: { models: Models; sealer: Sealer; audit: AuditLog; outbound: OutboundHttp; logger: Logger; version: string }) {
  const { McpServer } = deps.models;
  const connections = new Map<string, { client: Promise<Client>; version: number; usedAt: number }>();

  const view = (row: Row): McpServerView => ({
    id: row._id,
    name: row.name,
    url: row.url,
    auth: row.auth as McpServerView['auth'],
    clientId: row.clientId ?? null,
    issuer: row.issuer ?? null,
    agents: [...(row.agents ?? [])],
    tools: (row.tools ?? []).map((tool) => ({
      name: tool.name,
      ...(tool.title ? { title: tool.title } : {}),
      description: tool.description ?? '',
      inputSchema: JSON.parse(tool.inputSchema) as Record<string, unknown>,
      readOnlyHint: tool.readOnlyHint ?? false,
      destructiveHint: tool.destructiveHint ?? true,
    })),
    listedAt: row.listedAt ? row.listedAt.toISOString() : null,
    lastError: row.lastError ? { at: row.lastError.at.toISOString(), message: row.lastError.message } : null,
  });

  /** A client connected to the server as it is stored now. */
  async function open(row: Row): Promise<Client> {
    const fetch = deps.outbound.fetchWith({ streaming: true, timeoutMs: 30_000, maxBytes: 8 * 1024 * 1024 });
    const url = new URL(row.url);
    const auth =
      row.auth === 'bearer' && row.bearerSealed
        ? { requestInit: { headers: { authorization: `Bearer ${deps.sealer.open(row.bearerSealed, bearerLabel(row._id))}` } } }
        : row.auth === 'oauth' && row.clientId && row.clientSecretSealed
          ? {
              authProvider: new ClientCredentialsProvider({
                clientId: row.clientId,
                clientSecret: deps.sealer.open(row.clientSecretSealed, secretLabel(row._id)),
                ...(row.issuer ? { expectedIssuer: row.issuer } : {}),
              }),
            }
          : {};
    const transport = new StreamableHTTPClientTransport(url, { fetch, ...auth });
    const client = new Client({ name: 'service-agents', version: deps.version });
    await client.connect(transport);
    return client;
  }

  /** The kept connection to a server (a new one after its record changed, or after it sat idle). */
  function connection(row: Row): Promise<Client> {
    const version = row.updatedAt?.getTime() ?? 0;
    const kept = connections.get(row._id);
    if (kept && kept.version === version && Date.now() - kept.usedAt < IDLE_MS) {
      kept.usedAt = Date.now();
      return kept.client;
    }
    if (kept) void kept.client.then((client) => client.close()).catch(() => undefined);
    const client = open(row);
    connections.set(row._id, { client, version, usedAt: Date.now() });
    client.catch(() => connections.delete(row._id));
    return client;
  }

  function forget(id: string): void {
    const kept = connections.get(id);
    connections.delete(id);
    if (kept) void kept.client.then((client) => client.close()).catch(() => undefined);
  }

  async function row(id: string): Promise<Row> {
    const found = (await McpServer.findById(id).lean()) as Row | null;
    if (!found) throw new DomainError('NOT_FOUND', `No MCP server "${id}" is registered`);
    return found;
  }

  /** Asks the server for its tools and stores them (or why it could not be asked). */
  async function refresh(id: string): Promise<McpServerView> {
    const current = await row(id);
    try {
      const client = await connection(current);
      const tools: McpListedTool[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor ? { cursor } : {});
        for (const tool of page.tools) {
          tools.push({
            name: tool.name,
            ...(tool.title ? { title: tool.title } : {}),
            description: (tool.description ?? '').slice(0, 2_000),
            inputSchema: tool.inputSchema as Record<string, unknown>,
            readOnlyHint: tool.annotations?.readOnlyHint ?? false,
            // MCP: destructiveHint means something only for a tool that is not read-only (default true).
            destructiveHint: tool.annotations?.readOnlyHint ? false : (tool.annotations?.destructiveHint ?? true),
          });
        }
        cursor = page.nextCursor;
      } while (cursor && tools.length < MAX_TOOLS);
      const stored = tools.slice(0, MAX_TOOLS).map((tool) => ({ ...tool, inputSchema: JSON.stringify(tool.inputSchema) }));
      await McpServer.updateOne({ _id: id }, { $set: { tools: stored, listedAt: new Date(), lastError: null } }, { timestamps: false });
    } catch (error) {
      forget(id);
      const message = error instanceof Error ? error.message : String(error);
      deps.logger.warn('an MCP server could not list its tools', { server: id, error });
      await McpServer.updateOne({ _id: id }, { $set: { lastError: { at: new Date(), message: message.slice(0, 500) } } }, { timestamps: false });
    }
    return view(await row(id));
  }

  return {
    /**
     * Registers a server or changes one (admins), then asks it for its tools: a server that does
     * not answer is kept, with the reason (`lastError`), and can be refreshed later. Credentials left
     * out of an edit are kept; a changed URL needs them again.
     */
    async register(actor: Actor, input: McpServerInput): Promise<McpServerView> {
      if (!isAdmin(actor)) throw new DomainError('FORBIDDEN', 'Only an admin may register MCP servers');
      if (!ID.test(input.id)) throw problem('id', 'lowercase letters, digits and dashes');
      if (!input.name.trim()) throw problem('name', 'required');
      if (!URL.canParse(input.url) || !/^https?:$/.test(new URL(input.url).protocol) || new URL(input.url).username) throw problem('url', 'an http(s) URL without credentials in it');
      const agents = [...new Set(input.agents.map((agent) => agent.trim()).filter(Boolean))];
      const bad = agents.find((agent) => !AGENT.test(agent));
      if (bad) throw problem('agents', `"${bad}" is not an agent package name (@vendor/slug) or *`);
      const existing = (await McpServer.findById(input.id).lean()) as Row | null;
      const moved = !!existing && new URL(existing.url).origin !== new URL(input.url).origin;
      const set: Record<string, unknown> = { name: input.name.trim(), url: input.url, auth: input.auth.kind, agents, createdBy: existing?.createdBy ?? actor.id };
      if (input.auth.kind === 'bearer') {
        if (input.auth.token) set.bearerSealed = deps.sealer.seal(input.auth.token, bearerLabel(input.id));
        else if (!existing?.bearerSealed || moved) throw problem('auth.token', moved ? 'the server moved to another origin: enter its token again' : 'required');
        set.clientId = null;
        set.clientSecretSealed = null;
        set.issuer = null;
      } else if (input.auth.kind === 'oauth') {
        if (!input.auth.clientId.trim()) throw problem('auth.clientId', 'required');
        if (input.auth.issuer !== undefined && input.auth.issuer !== '' && (!URL.canParse(input.auth.issuer) || !/^https?:$/.test(new URL(input.auth.issuer).protocol))) throw problem('auth.issuer', 'an http(s) URL');
        if (input.auth.clientSecret) set.clientSecretSealed = deps.sealer.seal(input.auth.clientSecret, secretLabel(input.id));
        else if (!existing?.clientSecretSealed || moved) throw problem('auth.clientSecret', moved ? 'the server moved to another origin: enter the client secret again' : 'required');
        set.clientId = input.auth.clientId.trim();
        set.issuer = input.auth.issuer || null;
        set.bearerSealed = null;
      } else {
        set.bearerSealed = null;
        set.clientId = null;
        set.clientSecretSealed = null;
        set.issuer = null;
      }
      await McpServer.updateOne({ _id: input.id }, { $set: set }, { upsert: true });
      forget(input.id);
      deps.audit.record(actor, { action: 'mcp_server.register', resourceType: 'mcp_server', resourceId: input.id, details: { url: input.url, auth: input.auth.kind, agents, credentialChanged: !!((input.auth.kind === 'bearer' && input.auth.token) || (input.auth.kind === 'oauth' && input.auth.clientSecret)) } });
      return refresh(input.id);
    },

    /** Asks a server for its tools again (admins). */
    async refresh(actor: Actor, id: string): Promise<McpServerView> {
      if (!isAdmin(actor)) throw new DomainError('FORBIDDEN', 'Only an admin may refresh MCP servers');
      return refresh(id);
    },

    async remove(actor: Actor, id: string): Promise<void> {
      if (!isAdmin(actor)) throw new DomainError('FORBIDDEN', 'Only an admin may remove MCP servers');
      const { deletedCount } = await McpServer.deleteOne({ _id: id });
      if (!deletedCount) throw new DomainError('NOT_FOUND', `No MCP server "${id}" is registered`);
      forget(id);
      deps.audit.record(actor, { action: 'mcp_server.remove', resourceType: 'mcp_server', resourceId: id, details: {} });
    },

    async list(): Promise<McpServerView[]> {
      return ((await McpServer.find().sort({ _id: 1 }).lean()) as Row[]).map(view);
    },

    async get(id: string): Promise<McpServerView | null> {
      const found = (await McpServer.findById(id).lean()) as Row | null;
      return found ? view(found) : null;
    },

    /**
     * Calls a tool of a server for an agent: what it answered (its structured content, else its
     * text), or an UPSTREAM_FAILED naming what it said when it answered with an error. A call
     * whose connection broke is made once more on a new connection. `key` goes in the request's
     * `_meta` (`service/idempotency-key`), for servers that recognise a repeated call.
     */
    async callTool(id: string, tool: string, args: unknown, options: { key: string; signal: AbortSignal }): Promise<unknown> {
      const current = await row(id);
      const call = async () => {
        const client = await connection(current);
        return client.callTool({ name: tool, arguments: (args ?? {}) as Record<string, unknown>, _meta: { 'service/idempotency-key': options.key } }, undefined, { signal: options.signal, timeout: CALL_TIMEOUT_MS });
      };
      let result: Awaited<ReturnType<typeof call>>;
      try {
        result = await call();
      } catch (error) {
        if (options.signal.aborted) throw error;
        forget(id);
        deps.logger.warn('an MCP tool call failed on its connection; calling again on a new one', { server: id, tool, error });
        result = await call().catch((again: unknown) => {
          forget(id);
          throw new DomainError('UPSTREAM_FAILED', `The MCP server "${id}" could not be reached: ${again instanceof Error ? again.message : String(again)}`, { cause: again });
        });
      }
      const content = Array.isArray(result.content) ? (result.content as { type: string; text?: string }[]) : [];
      const text = content.flatMap((part) => (part.type === 'text' && typeof part.text === 'string' ? [part.text] : [])).join('\n');
      if (result.isError) throw new DomainError('UPSTREAM_FAILED', `${tool} on the MCP server "${id}" answered an error: ${text.slice(0, 1_000) || 'no reason given'}`);
      if (result.structuredContent !== undefined) return result.structuredContent;
      return content.length === 1 && content[0]!.type === 'text' ? text : content;
    },

    /** Closes every kept connection (at shutdown). */
    async close(): Promise<void> {
      const kept = [...connections.keys()];
      for (const id of kept) forget(id);
    },
  };
}

export type McpServers = ReturnType<typeof createMcpServers>;
