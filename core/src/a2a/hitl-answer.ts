import { z } from 'zod';
import { textOf, type Answer, type Interrupt, type RunMessage, type ToolCallUnderReview } from '../runs/index.ts';

export const resumeSchema = z.object({ screenId: z.string().min(1), values: z.record(z.string(), z.unknown()) });

/** What a HITL pause looks like on the wire (both A2A versions): in the status message's data part and in the event's metadata. */
export interface InterruptPayload {
  type: 'INTERRUPT';
  runId: string;
  stepId: string;
  screenId: string;
  title: string;
  schema: Record<string, unknown>;
  /** What is being answered about: the outputs of the steps before the pause, by step id, as text (bounded). */
  context?: Record<string, string>;
  /** The answer shapes this pause takes: `resume` ({ resume: { screenId, values } }), `values` (a data part of just the values), `text` (plain text, for a screen with one text field). */
  accepts: string[];
  /** For a pause bridged from a peer: the peer's task id. */
  remoteRunId?: string;
  /** A pause before a tool call: the call (tool, arguments and, for a content write, the field changes) to allow, deny or change. */
  tool?: ToolCallUnderReview;
}

/** The one text field of a screen whose schema has exactly one property, a string; else null. */
export function singleTextField(schema: Record<string, unknown>): string | null {
  const properties = schema.properties;
  if (!properties || typeof properties !== 'object') return null;
  const entries = Object.entries(properties as Record<string, { type?: unknown }>);
  return entries.length === 1 && entries[0]![1]?.type === 'string' ? entries[0]![0] : null;
}

/** How a generic client may answer `screen`: said in the INTERRUPT. */
export function acceptedAnswers(schema: Record<string, unknown>): string[] {
  return ['resume', 'values', ...(singleTextField(schema) ? ['text'] : [])];
}

export function interruptPayload(runId: string, interrupt: Interrupt): InterruptPayload {
  return {
    type: 'INTERRUPT',
    runId,
    stepId: interrupt.stepId,
    screenId: interrupt.screenId,
    title: interrupt.title,
    schema: interrupt.schema,
    ...(interrupt.context ? { context: interrupt.context } : {}),
    accepts: interrupt.accepts ?? acceptedAnswers(interrupt.schema),
    ...(interrupt.remoteRunId ? { remoteRunId: interrupt.remoteRunId } : {}),
    ...(interrupt.tool ? { tool: interrupt.tool } : {}),
  };
}

/** A peer's account of the tool call its pause is about, kept to its shape; undefined when it gave none. */
function toolUnderReview(value: unknown): ToolCallUnderReview | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const tool = value as Record<string, unknown>;
  if (typeof tool.callId !== 'string' || typeof tool.tool !== 'string') return undefined;
  const kind = tool.kind === 'agent' || tool.kind === 'mcp' ? tool.kind : 'primitive';
  const changes = Array.isArray(tool.changes) ? tool.changes.flatMap((change) => (change && typeof change === 'object' && typeof (change as { field?: unknown }).field === 'string' ? [{ field: (change as { field: string }).field, before: (change as { before?: unknown }).before ?? null, after: (change as { after?: unknown }).after ?? null }] : [])) : [];
  return { callId: tool.callId.slice(0, 100), tool: tool.tool.slice(0, 200), kind, arguments: tool.arguments ?? null, ...(changes.length ? { changes } : {}) };
}

/** A peer's INTERRUPT as the pause it describes, or null when it is not one. */
export function interruptFromPayload(value: unknown): Interrupt | null {
  const payload = value as Partial<InterruptPayload> | null;
  if (!payload || typeof payload !== 'object' || typeof payload.screenId !== 'string' || !payload.schema || typeof payload.schema !== 'object') return null;
  return {
    stepId: String(payload.stepId ?? payload.screenId),
    screenId: payload.screenId,
    title: String(payload.title ?? payload.screenId),
    schema: payload.schema,
    ...(payload.context && typeof payload.context === 'object' ? { context: payload.context } : {}),
    ...(Array.isArray(payload.accepts) ? { accepts: payload.accepts.map(String) } : {}),
    ...(typeof payload.runId === 'string' ? { remoteRunId: payload.runId } : {}),
    ...(toolUnderReview(payload.tool) ? { tool: toolUnderReview(payload.tool)! } : {}),
  };
}

/** An explicit `{ resume: { screenId, values } }`, in a data part or in the metadata. */
export function resumeOf(message: Pick<RunMessage, 'parts' | 'metadata'>): Answer | null {
  for (const part of message.parts) {
    if (part.type === 'data' && part.data && typeof part.data === 'object' && 'resume' in part.data) {
      const parsed = resumeSchema.safeParse((part.data as { resume: unknown }).resume);
      if (parsed.success) return parsed.data;
    }
  }
  const fromMetadata = resumeSchema.safeParse(message.metadata?.resume);
  return fromMetadata.success ? fromMetadata.data : null;
}

/**
 * The answer a message gives to a paused task, in any of the shapes the INTERRUPT names: a data
 * part `{ resume: { screenId, values } }` (or the same in metadata), a data part of just the
 * values, or plain text for a screen with a single text field. Null when it gives none.
 */
export function answerOf(message: Pick<RunMessage, 'parts' | 'metadata'>, pending: Pick<Interrupt, 'screenId' | 'schema'> | null): Answer | null {
  const explicit = resumeOf(message);
  if (explicit || !pending) return explicit;
  const data = message.parts.find((part) => part.type === 'data');
  if (data && data.type === 'data' && data.data && typeof data.data === 'object' && !Array.isArray(data.data)) return { screenId: pending.screenId, values: data.data as Record<string, unknown> };
  const field = singleTextField(pending.schema);
  const text = textOf(message);
  return field && text ? { screenId: pending.screenId, values: { [field]: text } } : null;
}
