import { textOf, type Interrupt, type Metadata, type RunMessage, type RunState } from '../runs/index.ts';
import { interruptFromPayload } from './hitl-answer.ts';

/** Small pieces both protocol versions' codecs share. */

export const isObject = (value: unknown): value is Record<string, unknown> => !!value && typeof value === 'object' && !Array.isArray(value);

export const withMetadata = (metadata: Metadata | undefined) => (metadata ? { metadata } : {});

/**
 * A peer's pause, as its status says it (in both versions: the INTERRUPT in the event's metadata
 * and as a data part of the status message): the pause it describes, and the message without the
 * data part (the run model keeps the pause apart; the codecs put it back when they write).
 */
export function pauseOf(message: RunMessage | undefined, metadata: unknown, state?: RunState): { message: RunMessage | undefined; interrupt?: Interrupt } {
  const interrupt = interruptFromPayload(isObject(metadata) ? metadata.interrupt : undefined);
  // Any other agent's `input-required` is a pause too: what it asked, in its own words (or form).
  if (!interrupt && state === 'input-required') return { message, interrupt: peerPause(message) };
  if (!message || !interrupt) return { message, ...(interrupt ? { interrupt } : {}) };
  return { message: { ...message, parts: message.parts.filter((part) => !(part.type === 'data' && isObject(part.data) && 'interrupt' in part.data)) }, interrupt };
}

/** A peer's event metadata without its INTERRUPT (kept apart as the pause). */
export function withoutInterrupt(metadata: unknown): Metadata | undefined {
  if (!isObject(metadata)) return undefined;
  const { interrupt: _interrupt, ...rest } = metadata;
  return Object.keys(rest).length ? rest : undefined;
}

/** A data part that is a JSON Schema of an object: the form a peer asks to be filled in. */
const isObjectSchema = (value: unknown): value is Record<string, unknown> => isObject(value) && value.type === 'object' && isObject(value.properties);

/** The one-field screen of a peer that asks in words. */
const TEXT_ANSWER = { type: 'object', properties: { text: { type: 'string', title: 'Your answer', minLength: 1, maxLength: 20_000 } }, required: ['text'], additionalProperties: false };

/**
 * The pause of a peer that is not of this project (an `@a2a-js/sdk` or Python `a2a-sdk` agent
 * answering `input-required`): its message is the question, answered in words, or through the form
 * when the message carries a JSON Schema as a data part.
 */
export function peerPause(message: RunMessage | undefined): Interrupt {
  const form = message?.parts.find((part) => part.type === 'data' && isObjectSchema(part.data));
  const asked = textOf(message).trim();
  return {
    stepId: 'peer',
    screenId: 'peer-input',
    title: (asked || 'The agent asks for input').slice(0, 200),
    schema: form?.type === 'data' ? (form.data as Record<string, unknown>) : TEXT_ANSWER,
    ...(asked.length > 200 ? { context: { asked: asked.slice(0, 8_000) } } : {}),
    peer: form ? 'form' : 'text',
  };
}
