import { resumeOf, textOf, type Message, type ResumePayload } from './protocol.ts';

interface PendingScreen {
  screenId: string;
  schema: Record<string, unknown>;
}

/** The one text field of a screen whose schema has exactly one property, a string; else null. */
export function singleTextField(schema: Record<string, unknown>): string | null {
  const properties = schema.properties;
  if (!properties || typeof properties !== 'object') return null;
  const entries = Object.entries(properties as Record<string, { type?: unknown }>);
  return entries.length === 1 && entries[0]![1]?.type === 'string' ? entries[0]![0] : null;
}

/**
 * The answer a message gives to a paused task, in any of the shapes the INTERRUPT names: a data
 * part `{ resume: { screenId, values } }` (or the same in metadata), a data part of just the
 * values, or plain text for a screen with a single text field. Null when it gives none.
 */
export function answerOf(message: Pick<Message, 'parts' | 'metadata'>, pending: PendingScreen | null): ResumePayload | null {
  const explicit = resumeOf(message);
  if (explicit || !pending) return explicit;
  const data = message.parts.find((part) => part.kind === 'data');
  if (data && data.kind === 'data') return { screenId: pending.screenId, values: data.data };
  const field = singleTextField(pending.schema);
  const text = textOf(message);
  return field && text ? { screenId: pending.screenId, values: { [field]: text } } : null;
}

/** How a generic client may answer `screen`: said in the INTERRUPT. */
export function acceptedAnswers(schema: Record<string, unknown>) {
  const field = singleTextField(schema);
  return ['resume', 'values', ...(field ? ['text'] : [])] as const;
}
