import { PACKAGE_NAME, toolNameOf } from './names.ts';

/**
 * What a flow may name as a tool: an agent or skill package (`@vendor/slug`, installed here or
 * offered by a registered peer), a connector primitive (`cms_b_post_update`), or a tool of an MCP
 * server an admin registered (`mcp:<server>/<tool>`).
 */
export type ToolRef = { kind: 'agent'; agent: string } | { kind: 'primitive'; name: string } | { kind: 'mcp'; server: string; tool: string };

const PRIMITIVE_NAME = /^[a-z][a-z0-9_]{2,63}$/;
const MCP_REF = /^mcp:([a-z0-9][a-z0-9-]{0,62})\/([A-Za-z0-9_.\-/]{1,128})$/;

/** The reference a flow wrote, or null when it names nothing a tool can be. */
export function parseToolRef(ref: string): ToolRef | null {
  if (PACKAGE_NAME.test(ref)) return { kind: 'agent', agent: ref };
  const mcp = MCP_REF.exec(ref);
  if (mcp) return { kind: 'mcp', server: mcp[1]!, tool: mcp[2]! };
  if (PRIMITIVE_NAME.test(ref)) return { kind: 'primitive', name: ref };
  return null;
}

export function formatToolRef(ref: ToolRef): string {
  return ref.kind === 'agent' ? ref.agent : ref.kind === 'primitive' ? ref.name : `mcp:${ref.server}/${ref.tool}`;
}

/**
 * The function name the model sees (providers take `[A-Za-z0-9_-]{1,64}`): an agent's card
 * `toolName` (`acme__summarizer`), a primitive's own name, `mcp__<server>__<tool>` for an MCP tool.
 */
export function modelToolName(ref: ToolRef): string {
  if (ref.kind === 'agent') return toolNameOf(ref.agent);
  if (ref.kind === 'primitive') return ref.name;
  return `mcp__${ref.server}__${ref.tool}`.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);
}

/** The name of the tool a step with an output schema answers through. */
export const RESPOND_TOOL = 'respond';
