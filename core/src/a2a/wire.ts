import type { Interrupt, Metadata, RunMessage } from '../runs/index.ts';
import { interruptFromPayload } from './hitl-answer.ts';

/** Small pieces both protocol versions' codecs share. */

export const isObject = (value: unknown): value is Record<string, unknown> => !!value && typeof value === 'object' && !Array.isArray(value);

export const withMetadata = (metadata: Metadata | undefined) => (metadata ? { metadata } : {});

/**
 * A peer's pause, as its status says it (in both versions: the INTERRUPT in the event's metadata
 * and as a data part of the status message): the pause it describes, and the message without the
 * data part (the run model keeps the pause apart; the codecs put it back when they write).
 */
export function pauseOf(message: RunMessage | undefined, metadata: unknown): { message: RunMessage | undefined; interrupt?: Interrupt } {
  const interrupt = interruptFromPayload(isObject(metadata) ? metadata.interrupt : undefined);
  if (!message || !interrupt) return { message, ...(interrupt ? { interrupt } : {}) };
  return { message: { ...message, parts: message.parts.filter((part) => !(part.type === 'data' && isObject(part.data) && 'interrupt' in part.data)) }, interrupt };
}

/** A peer's event metadata without its INTERRUPT (kept apart as the pause). */
export function withoutInterrupt(metadata: unknown): Metadata | undefined {
  if (!isObject(metadata)) return undefined;
  const { interrupt: _interrupt, ...rest } = metadata;
  return Object.keys(rest).length ? rest : undefined;
}
