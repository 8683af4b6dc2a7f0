import type { ToolApproval } from '../agents/index.ts';
import type { Interrupt, ToolCallUnderReview, ToolFieldChange } from './model.ts';

/** What a tool says of itself (MCP's annotations; agents say nothing and are taken as read-only). */
export interface ToolHints {
  readOnlyHint: boolean;
  destructiveHint: boolean;
}

/** Characters of arguments and changes shown with an approval as text (the structured copy is whole). */
const MAX_SHOWN = 4_000;

/**
 * Whether a call waits for a human first: always when the flow says `always`, never when it says
 * `never`, else (`auto`) when the tool changes something (not read-only, or destructive). A call
 * that asks to change a live post (`allowLive: true`) is asked about whatever the flow says.
 */
export function needsApproval(approval: ToolApproval, hints: ToolHints, args: unknown): boolean {
  if (args && typeof args === 'object' && (args as { allowLive?: unknown }).allowLive === true) return true;
  if (approval === 'always') return true;
  if (approval === 'never') return false;
  return hints.destructiveHint || !hints.readOnlyHint;
}

/** The screen of an approval: approve (as asked, or with changed arguments) or deny, saying why. */
export function approvalScreenSchema(parameters: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _schema, ...argumentsSchema } = parameters;
  return {
    type: 'object',
    properties: {
      approved: { type: 'boolean', title: 'Allow this call' },
      reason: { type: 'string', title: 'Why not (the agent is told)', maxLength: 2000 },
      arguments: { ...argumentsSchema, title: 'Arguments (change them before allowing the call)' },
    },
    required: ['approved'],
    additionalProperties: false,
  };
}

/** The screen id of the approval of one call: answers name the call they decide. */
export const approvalScreenId = (callId: string) => `approve-${callId}`;

/** The pause before a tool call: the same pause as an `ask` step's, its screen the approval's. */
export function approvalInterrupt(stepId: string, call: ToolCallUnderReview & { parameters: Record<string, unknown> }): Interrupt {
  const { parameters, ...tool } = call;
  return {
    stepId,
    screenId: approvalScreenId(call.callId),
    title: `Allow ${call.tool} to run?`,
    schema: approvalScreenSchema(parameters),
    context: {
      tool: call.tool,
      arguments: bounded(JSON.stringify(call.arguments ?? null, null, 2)),
      ...(call.changes?.length ? { changes: bounded(call.changes.map(describeChange).join('\n')) } : {}),
    },
    tool,
  };
}

/** How an approval was decided, from the screen's values. */
export function approvalDecision(values: Record<string, unknown>): { approved: boolean; reason?: string; arguments?: unknown } {
  const reason = typeof values.reason === 'string' && values.reason.trim() ? values.reason.trim() : undefined;
  return { approved: values.approved === true, ...(reason ? { reason } : {}), ...(values.arguments !== undefined ? { arguments: values.arguments } : {}) };
}

function describeChange(change: ToolFieldChange): string {
  const show = (value: unknown) => (typeof value === 'string' ? JSON.stringify(value.length > 300 ? `${value.slice(0, 300)}…` : value) : JSON.stringify(value));
  return `${change.field}: ${show(change.before)} → ${show(change.after)}`;
}

const bounded = (text: string) => (text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}…` : text);
