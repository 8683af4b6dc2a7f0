import { DomainError } from '../../errors/index.ts';

/** One event (its lines and its data together) may be at most this large. */
export const MAX_SSE_EVENT_BYTES = 1024 * 1024;

export interface SseMessage {
  id: string | null;
  event: string | null;
  data: string;
}

/**
 * Parses an SSE byte stream into messages (comments and keep-alives skipped). A peer that sends
 * an event (or a line) larger than `maxEventBytes` is cut off with PAYLOAD_TOO_LARGE instead of
 * growing the buffer without end.
 */
export async function* readSse(body: ReadableStream<Uint8Array>, signal?: AbortSignal, maxEventBytes = MAX_SSE_EVENT_BYTES): AsyncGenerator<SseMessage> {
  const tooLarge = () => new DomainError('PAYLOAD_TOO_LARGE', `an event of the stream is larger than ${maxEventBytes} bytes`);
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let message: SseMessage = { id: null, event: null, data: '' };
  let hasData = false;
  try {
    while (!signal?.aborted) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let newline: number;
      while ((newline = buffer.search(/\r\n|\n|\r/)) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + (buffer.startsWith('\r\n', newline) ? 2 : 1));
        if (line === '') {
          if (hasData) yield message;
          message = { id: null, event: null, data: '' };
          hasData = false;
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'data') {
          message.data = hasData ? `${message.data}\n${value}` : value;
          hasData = true;
        } else if (field === 'id') message.id = value;
        else if (field === 'event') message.event = value;
        if (message.data.length > maxEventBytes) throw tooLarge();
      }
      // What is left is an unfinished line: it may not grow past one event's size either.
      if (buffer.length > maxEventBytes) throw tooLarge();
    }
  } finally {
    reader.releaseLock();
  }
}
