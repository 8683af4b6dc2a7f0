import type { FlowTool } from '../agents/index.ts';
import type { ResolvedTool } from './tool-step.ts';

/**
 * Where the tools of LLM steps come from: agents (here or on a peer), connector primitives, tools
 * of registered MCP servers. Wired by the services (it needs connectors, peers and MCP clients,
 * which the run engine does not know).
 */
export interface Toolbox {
  /** The tools `agent`'s step is granted, resolved; fails naming a tool that cannot be had here. */
  resolve(agent: string, tools: FlowTool[]): Promise<ResolvedTool[]>;
}
