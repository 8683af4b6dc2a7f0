import { systemActor } from '../auth/index.ts';
import { modelToolName, type FlowTool } from '../agents/index.ts';
import type { PrimitiveRegistry } from '../connectors/index.ts';
import { DomainError, parseOrThrow } from '../errors/index.ts';
import type { ExtensionReader } from '../extensions/index.ts';
import { primitiveInputSchema } from '../mcp/index.ts';
import type { McpServers } from '../mcp-servers/index.ts';
import type { ResolvedTool, Toolbox } from '../runs/index.ts';
import type { Logger } from '../log/index.ts';
import { z } from 'zod';

/** What an agent tool takes: one text, as a `call` step's input. */
const agentInput = z.object({ input: z.string().min(1).max(200_000) }).strict();

/** An agent offered by a registered peer: what its card says of it. */
export interface PeerAgent {
  peerName: string;
  name: string;
  description: string;
}

/** A tool of the flow that nothing here or on a peer provides. */
const unavailable = (tool: FlowTool, why: string) => new DomainError('NOT_FOUND', `The tool ${tool.id} is not available: ${why}`);

/**
 * The tools of LLM steps, resolved for one run: agents and skill packages installed here or
 * offered by a registered peer (each described by its card entry, called with one text), and
 * connector primitives (described and checked as MCP clients see them, called through the same
 * gate, as the agent: a worker actor named after it, with the call's key for the CMS).
 */
export function createToolbox(deps: {
  extensions: ExtensionReader;
  /** The first registered peer whose card offers the agent, or null. */
  peerAgent: (agent: string) => Promise<PeerAgent | null>;
  primitives: PrimitiveRegistry;
  mcpServers: Pick<McpServers, 'get' | 'callTool'>;
  logger?: Logger;
}): Toolbox {
  async function agentTool(tool: FlowTool & { ref: { kind: 'agent' } }): Promise<ResolvedTool> {
    const agent = tool.ref.agent;
    const local = await deps.extensions.getByPackageName(agent);
    const described = local ? { name: local.compiled.card.name, description: local.compiled.card.description } : await deps.peerAgent(agent).catch(() => null);
    if (!described) throw unavailable(tool, `${agent} is neither installed here nor offered by a registered peer`);
    const where = local ? '' : ` (on the peer ${(described as PeerAgent).peerName})`;
    return {
      id: tool.id,
      name: modelToolName(tool.ref),
      kind: 'agent',
      description: `${described.name}${where}: ${described.description}`.slice(0, 1_000),
      parameters: { type: 'object', properties: { input: { type: 'string', description: `What to ask ${described.name}, in plain words` } }, required: ['input'], additionalProperties: false },
      // An agent says nothing of what it changes: it is taken as read-only (a flow marks it `always` to ask first).
      hints: { readOnlyHint: true, destructiveHint: false },
      approval: tool.approval,
      call: (args, context) => context.callAgent(agent, parseOrThrow(agentInput, args, `Invalid input for ${tool.id}`).input),
    };
  }

  function primitiveTool(agent: string, tool: FlowTool & { ref: { kind: 'primitive' } }): ResolvedTool {
    const primitive = deps.primitives.get(tool.ref.name);
    if (!primitive) throw unavailable(tool, 'no connector primitive has that name here');
    const actor = systemActor(`agent ${agent}`);
    const { $schema: _schema, ...parameters } = primitiveInputSchema(primitive) as Record<string, unknown>;
    return {
      id: tool.id,
      name: modelToolName(tool.ref),
      kind: 'primitive',
      description: primitive.description,
      parameters,
      hints: primitive.annotations,
      approval: tool.approval,
      call: (args, context) => deps.primitives.call(actor, primitive.name, args, { idempotencyKey: context.key, traced: false }),
      ...(primitive.preview ? { preview: (args: unknown) => deps.primitives.preview(actor, primitive.name, args) } : {}),
    };
  }

  /** A tool of a registered MCP server, as it listed it, if the server lets this agent use it. */
  async function mcpTool(agent: string, tool: FlowTool & { ref: { kind: 'mcp' } }): Promise<ResolvedTool> {
    const { server: serverId, tool: toolName } = tool.ref;
    const server = await deps.mcpServers.get(serverId);
    if (!server) throw unavailable(tool, `no MCP server "${serverId}" is registered`);
    if (!server.agents.includes('*') && !server.agents.includes(agent)) throw unavailable(tool, `the MCP server "${serverId}" is not enabled for ${agent}`);
    const listed = server.tools.find((entry) => entry.name === toolName);
    if (!listed) throw unavailable(tool, `the MCP server "${serverId}" lists no tool "${toolName}"${server.listedAt ? '' : ' (it has not answered yet)'}`);
    const { $schema: _schema, ...parameters } = listed.inputSchema;
    return {
      id: tool.id,
      name: modelToolName(tool.ref),
      kind: 'mcp',
      description: `${listed.title ?? listed.name} (MCP server ${server.name}): ${listed.description}`.slice(0, 2_000),
      parameters: { type: 'object', ...parameters },
      hints: { readOnlyHint: listed.readOnlyHint, destructiveHint: listed.destructiveHint },
      approval: tool.approval,
      call: (args, context) => deps.mcpServers.callTool(serverId, toolName, args, { key: context.key, signal: context.signal }),
    };
  }

  return {
    async resolve(agent, tools) {
      const resolved = await Promise.all(
        tools.map(async (tool) => {
          // Agents come and go with the peers that offer them: one nobody offers now is not offered to the model.
          if (tool.ref.kind === 'agent') {
            return agentTool(tool as FlowTool & { ref: { kind: 'agent' } }).catch((error: unknown) => {
              deps.logger?.warn('an agent tool is not available: the step goes on without it', { agent, tool: tool.id, reason: error instanceof Error ? error.message : String(error) });
              return null;
            });
          }
          if (tool.ref.kind === 'primitive') return primitiveTool(agent, tool as FlowTool & { ref: { kind: 'primitive' } });
          return mcpTool(agent, tool as FlowTool & { ref: { kind: 'mcp' } });
        }),
      );
      return resolved.filter((tool): tool is ResolvedTool => tool !== null);
    },
  };
}
