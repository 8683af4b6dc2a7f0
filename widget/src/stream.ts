import { createParser } from 'eventsource-parser';
import type { WidgetConfig } from './config.ts';

export type Turn = { role: 'user' | 'assistant'; content: string };
export type Change = { field: string; before: string; after: string };
export type WidgetEventHandler = {
  text(content: string): void;
  changes(fields: Change[]): void;
  error(message: string): void;
  done(fallback: boolean): void;
};

const url = (config: WidgetConfig, action: 'stream' | 'undo') =>
  `${config.serviceUrl}/api/agents/${encodeURIComponent(config.agentSlug)}/${action}?instanceId=${encodeURIComponent(config.instanceId)}`;

async function post(config: WidgetConfig, action: 'stream' | 'undo', body: unknown, on: WidgetEventHandler): Promise<void> {
  let response: Response;
  try {
    response = await fetch(url(config, action), {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${config.apiKey}` },
      body: JSON.stringify(body),
    });
  } catch {
    return on.error('The assistant is unreachable.');
  }
  if (!response.ok || !response.body) {
    const failure = (await response.json().catch(() => null)) as { error?: { message?: string } } | null;
    return on.error(failure?.error?.message ?? `The assistant answered ${response.status}.`);
  }
  let ended = false;
  const parser = createParser({
    onEvent(event) {
      const data = JSON.parse(event.data) as Record<string, unknown>;
      if (event.event === 'text') on.text(String(data.content ?? ''));
      else if (event.event === 'changes') on.changes(data.fields as Change[]);
      else if (event.event === 'error') {
        ended = true;
        on.error(String(data.message ?? 'The assistant failed.'));
      } else if (event.event === 'done') {
        ended = true;
        on.done(data.fallback === true);
      }
    },
  });
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parser.feed(value);
  }
  if (!ended) on.error('The answer was cut off.');
}

/** Sends the history to the stream route and calls `on` for each frozen event as it arrives. */
export const streamTurn = (config: WidgetConfig, messages: Turn[], on: WidgetEventHandler) => post(config, 'stream', { itemId: config.itemId, messages }, on);

/** Asks the service to put the `before` values back on the draft; the result streams like a turn. */
export const undoChanges = (config: WidgetConfig, fields: Change[], on: WidgetEventHandler) => post(config, 'undo', { itemId: config.itemId, fields }, on);
