import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { toJsonSchemaCompat } from '@modelcontextprotocol/sdk/server/zod-json-schema-compat.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CallToolRequestSchema, ListToolsRequestSchema, McpError, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { AgentAccessActor } from '../auth/index.ts';
import { mayCallPrimitive, type Primitive, type PrimitiveRegistry } from '../connectors/index.ts';
import { DomainError, ERROR_TABLE, toDomainError } from '../errors/index.ts';
import type { Logger } from '../log/index.ts';
import { refuseMalformedToolCalls } from './tool-call-params.ts';

/** A primitive's input as the JSON Schema MCP clients (and agents' models) are given; built once per primitive. */
const inputSchemas = new WeakMap<Primitive, Tool['inputSchema']>();
export function primitiveInputSchema(primitive: Primitive): Tool['inputSchema'] {
  let schema = inputSchemas.get(primitive);
  if (!schema) inputSchemas.set(primitive, (schema = toJsonSchemaCompat(primitive.input, { strictUnions: true, pipeStrategy: 'input' }) as Tool['inputSchema']));
  return schema;
}

/** A primitive as tools/list describes it; built once per primitive, not per request. */
const toolDefinitions = new WeakMap<Primitive, Tool>();
function toolDefinition(primitive: Primitive): Tool {
  let tool = toolDefinitions.get(primitive);
  if (!tool) {
    tool = {
      name: primitive.name,
      title: primitive.title ?? primitive.name,
      description: primitive.description,
      inputSchema: primitiveInputSchema(primitive),
      // Results travel as `{ result }` (some are lists); the schema says what `result` holds.
      ...(primitive.output ? { outputSchema: toJsonSchemaCompat(z.object({ result: primitive.output }), { strictUnions: true, pipeStrategy: 'output' }) as Tool['outputSchema'] } : {}),
      annotations: primitive.annotations,
    };
    toolDefinitions.set(primitive, tool);
  }
  return tool;
}

/** The server, with malformed tools/call requests refused before the SDK reads them (see tool-call-params.ts). */
class ConnectorMcpServer extends Server {
  override async connect(transport: Transport): Promise<void> {
    await super.connect(transport);
    refuseMalformedToolCalls(transport);
  }
}

/**
 * An MCP server exposing the primitives of the registry as tools, for one authenticated actor.
 * tools/list shows the tools the actor may call, decided by the gate the call itself runs
 * (`mayCallPrimitive`), against the grants read at that request. A call runs the registry's gate
 * before its input is read, so a caller without the grant is told that, never the tool's schema.
 * A refused or failed call is a tool error (`isError: true`) whose text says why, never data.
 */
export function buildMcpServer(deps: {
  registry: PrimitiveRegistry;
  /**
   * How to resolve the caller afresh for each request (stdio: the client's current grants). Without
   * it, the caller is the request's auth info (`extra.actor`, set by the HTTP handler).
   */
  actor?: () => Promise<AgentAccessActor>;
  version: string;
  logger: Logger;
}): Server {
  const actorOf = async (extra: { authInfo?: { extra?: Record<string, unknown> } }): Promise<AgentAccessActor> => {
    if (deps.actor) return deps.actor();
    const actor = extra.authInfo?.extra?.actor as AgentAccessActor | undefined;
    if (!actor) throw new DomainError('UNAUTHENTICATED', 'The request carries no authenticated caller');
    return actor;
  };
  const visibleTo = (actor: AgentAccessActor) => deps.registry.list().filter((primitive) => mayCallPrimitive(actor, primitive));
  // Only a session (stdio) outlives a request, so only it can be told that its list changed.
  const session = deps.actor !== undefined;
  const server = new ConnectorMcpServer({ name: 'service-connectors', version: deps.version }, { capabilities: { tools: { listChanged: session } } });
  /** The names the session was last shown, to notice when its grants have changed since. */
  let lastListed: string | undefined;
  const namesOf = (primitives: Primitive[]) => primitives.map((primitive) => primitive.name).join('\n');

  server.setRequestHandler(ListToolsRequestSchema, async (_request, extra) => {
    const actor = await resolve(extra);
    const tools = visibleTo(actor);
    if (session) lastListed = namesOf(tools);
    return { tools: tools.map(toolDefinition) };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    try {
      const actor = await actorOf(extra);
      if (session && lastListed !== undefined && namesOf(visibleTo(actor)) !== lastListed) {
        lastListed = undefined;
        void server.sendToolListChanged().catch((error: unknown) => deps.logger.warn('could not tell the MCP client its tool list changed', { error }));
      }
      const result = await deps.registry.call(actor, request.params.name, request.params.arguments);
      return { content: [{ type: 'text' as const, text: JSON.stringify(result) }], structuredContent: { result } as Record<string, unknown> };
    } catch (error) {
      const body = toDomainError(error, deps.logger).toPublicJSON();
      return { isError: true, content: [{ type: 'text' as const, text: `${body.code}: ${body.message}` }] };
    }
  });

  /** The caller of a tools/list, or a JSON-RPC error saying why there is none (a revoked stdio client). */
  async function resolve(extra: Parameters<typeof actorOf>[0]): Promise<AgentAccessActor> {
    try {
      return await actorOf(extra);
    } catch (error) {
      const domain = toDomainError(error, deps.logger);
      const body = domain.toPublicJSON();
      throw new McpError(ERROR_TABLE[domain.code].jsonRpc, body.message);
    }
  }

  return server;
}
