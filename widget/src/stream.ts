import { createParser } from 'eventsource-parser';
import type { WidgetConfig } from './config.ts';
import { parseFrame, type Change } from './frames.ts';
import { recentTurns, type Turn } from './history.ts';

export type { Change, Turn };
export type WidgetEventHandler = {
  text(content: string): void;
  /** A diff already applied; `token` (the event's SSE id) undoes it, and is absent when it cannot be undone from here (an Undo's own diff). */
  changes(fields: Change[], token?: string): void;
  error(message: string): void;
  done(fallback: boolean): void;
};

/** With no byte from the service for this long the turn ends with an error (the server sends no keep-alives, an edit can take a while). */
export const IDLE_TIMEOUT_MS = 180_000;

const url = (config: WidgetConfig, action: 'stream' | 'undo' | 'status') =>
  `${config.serviceUrl}/api/agents/${encodeURIComponent(config.agentSlug)}/${action}?instanceId=${encodeURIComponent(config.instanceId)}`;

/**
 * One request whose answer streams frozen events to `on`. Whatever happens (an HTTP error, a frame
 * that fails the schema, a dropped or stalled connection, a handler that throws), exactly one of
 * `on.error` or `on.done` is called, once, and the promise never rejects.
 */
async function post(config: WidgetConfig, action: 'stream' | 'undo', body: unknown, on: WidgetEventHandler): Promise<void> {
  let ended = false;
  const end = (final: () => void) => {
    if (ended) return;
    ended = true;
    try {
      final();
    } catch {
      // The panel's own handler failed; nothing more to tell it.
    }
  };
  const fail = (message: string) => end(() => on.error(message));
  const abort = new AbortController();
  let idle: ReturnType<typeof setTimeout> | undefined;
  const touch = () => {
    clearTimeout(idle);
    idle = setTimeout(() => abort.abort(), IDLE_TIMEOUT_MS);
  };
  let reader: ReadableStreamDefaultReader<string> | undefined;
  try {
    touch();
    let response: Response;
    try {
      response = await fetch(url(config, action), {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${config.apiKey}` },
        body: JSON.stringify(body),
        signal: abort.signal,
      });
    } catch {
      return fail(abort.signal.aborted ? 'The assistant did not answer.' : 'The assistant is unreachable.');
    }
    if (!response.ok || !response.body) {
      const failure = (await response.json().catch(() => null)) as { error?: { message?: unknown } } | null;
      const message = failure?.error?.message;
      return fail(typeof message === 'string' && message ? message : `The assistant answered ${response.status}.`);
    }
    const parser = createParser({
      onEvent(event) {
        if (ended) return;
        const frame = parseFrame(event.event, event.data);
        if (frame === null) return;
        if (frame === false) return fail('The assistant sent an answer the widget cannot read.');
        try {
          if (frame.event === 'text') on.text(frame.data.content);
          else if (frame.event === 'changes') on.changes(frame.data.fields, event.id || undefined);
          else if (frame.event === 'error') end(() => on.error(frame.data.message));
          else end(() => on.done(frame.data.fallback === true));
        } catch {
          fail('The answer could not be shown.');
        }
      },
    });
    reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    while (!ended) {
      const { done, value } = await reader.read();
      if (done) break;
      touch();
      parser.feed(value);
    }
    fail('The answer was cut off.');
  } catch {
    fail(abort.signal.aborted ? 'The assistant stopped answering.' : 'The connection to the assistant was lost.');
  } finally {
    clearTimeout(idle);
    // Ended early (a bad frame): stop reading, so the service stops the turn too.
    void reader?.cancel().catch(() => undefined);
  }
}

/**
 * Sends the recent history (what the contract allows) to the stream route and calls `on` for each
 * frozen event as it arrives. `confirmLiveEdit`: the user said yes to editing a live post (the
 * service answers an edit of one without it with the question, not the write).
 */
export const streamTurn = (config: WidgetConfig, history: readonly Turn[], on: WidgetEventHandler, confirmLiveEdit = false) =>
  post(config, 'stream', { ...(config.itemId === null ? {} : { itemId: config.itemId }), messages: recentTurns(history), ...(confirmLiveEdit ? { confirmLiveEdit: true } : {}) }, on);

/** The assistant's status for this site: the placeholder to show (the offline provider's phrases), or null when it cannot be had. */
export async function fetchPlaceholder(config: WidgetConfig): Promise<string | null> {
  try {
    const response = await fetch(url(config, 'status'), { headers: { authorization: `Bearer ${config.apiKey}` }, signal: AbortSignal.timeout(10_000) });
    if (!response.ok) return null;
    const status = (await response.json()) as { placeholder?: unknown };
    return typeof status.placeholder === 'string' && status.placeholder.length <= 300 ? status.placeholder : null;
  } catch {
    return null;
  }
}

/**
 * Asks the service to undo the change its token names; the service writes what it recorded, and
 * only while the item is as the change left it. `confirmStatusChange` is the user's yes to an Undo
 * that changes the published status. A refusal comes to `on.error` with the service's words.
 */
export const undoChange = (config: WidgetConfig, token: string, confirmStatusChange: boolean, on: WidgetEventHandler) =>
  post(config, 'undo', { token, ...(confirmStatusChange ? { confirmStatusChange: true } : {}) }, on);
