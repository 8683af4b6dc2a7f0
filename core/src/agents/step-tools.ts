import type { FlowDefinition, LlmStep } from './flow-definition.ts';
import { formatToolRef, parseToolRef, type ToolRef } from './tool-refs.ts';

export type ToolApproval = 'auto' | 'always' | 'never';

/** A tool of a flow as the flow grants it: what it is and when a human approves its calls. */
export interface FlowTool {
  ref: ToolRef;
  /** The reference as the flow wrote it (`@acme/summarizer`, `cms_b_post_get`, `mcp:docs/search`). */
  id: string;
  approval: ToolApproval;
}

/**
 * Every tool the flow grants, once each: its `skills` (approval `auto`), then its `tools` (a
 * `tools` entry for a skill sets that skill's approval). References that name nothing are left
 * out (the review reports them).
 */
export function flowTools(flow: Pick<FlowDefinition, 'skills' | 'tools'>): FlowTool[] {
  const byId = new Map<string, FlowTool>();
  const add = (ref: ToolRef | null, approval: ToolApproval) => {
    if (ref) byId.set(formatToolRef(ref), { ref, id: formatToolRef(ref), approval });
  };
  for (const skill of flow.skills) {
    const ref = parseToolRef(skill);
    if (ref?.kind === 'agent') add(ref, 'auto');
  }
  for (const entry of flow.tools ?? []) {
    if (typeof entry === 'string') add(parseToolRef(entry), byId.get(entry)?.approval ?? 'auto');
    else add(parseToolRef(entry.tool), entry.approval);
  }
  return [...byId.values()];
}

/** The tools an LLM step offers: the ones it names among the flow's, or all of the flow's. */
export function stepTools(flow: Pick<FlowDefinition, 'skills' | 'tools'>, step: Pick<LlmStep, 'tools'>): FlowTool[] {
  const all = flowTools(flow);
  if (step.tools === undefined) return all;
  const named = new Set(step.tools);
  return all.filter((tool) => named.has(tool.id));
}
