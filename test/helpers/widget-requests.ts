import { widgetEventSchemas, type WidgetEvent, type WidgetEventName } from '@service/core/widget';
import { expect } from 'vitest';

/** One SSE frame of a widget route: its SSE `id` (a `changes` event's undo token), event name and payload. */
export type Frame = WidgetEvent & { id?: string };

/** The frames of an SSE answer, each checked against the frozen schemas. */
export function readFrames(text: string): Frame[] {
  return text
    .split('\n\n')
    .filter(Boolean)
    .map((frame) => {
      const event = /^event: (\w+)$/m.exec(frame)![1] as WidgetEventName;
      const data = JSON.parse(/^data: (.*)$/m.exec(frame)![1]!) as unknown;
      expect(widgetEventSchemas[event].safeParse(data).success, frame).toBe(true);
      const id = /^id: (.*)$/m.exec(frame)?.[1];
      return { event, data, ...(id === undefined ? {} : { id }) } as Frame;
    });
}

/** A route's answer: the frames of a stream, or the JSON error of a refusal. */
export interface Answer {
  status: number;
  frames: Frame[];
  error?: { code: string; message: string; details?: { path: string; reason: string }[] };
}

type Handler = (request: Request, slug: string) => Promise<Response>;

/**
 * The widget as a CMS page would call the service's widget routes, through the handlers directly:
 * the instance's site origin, its widget key. `edit` sends one user turn; `undo` sends any body.
 */
export function widgetCaller(options: { handlers: { widgetStream: Handler; widgetUndo: Handler }; slug: string; instanceId: string; origin: string; key: string }) {
  const request = (action: 'stream' | 'undo', body: unknown) =>
    new Request(`http://127.0.0.1:3999/api/agents/${options.slug}/${action}?instanceId=${options.instanceId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: options.origin, authorization: `Bearer ${options.key}` },
      body: JSON.stringify(body),
    });
  const answer = async (response: Response): Promise<Answer> => {
    if (response.headers.get('content-type')?.startsWith('text/event-stream')) return { status: response.status, frames: readFrames(await response.text()) };
    return { status: response.status, frames: [], error: ((await response.json()) as { error: Answer['error'] }).error };
  };
  return {
    /** One turn on an item (none: the site-level chat); `confirmLiveEdit`: the user's yes to editing a live post. */
    stream: async (text: string, itemId?: string | number, extra: { confirmLiveEdit?: boolean } = {}) => answer(await options.handlers.widgetStream(request('stream', { ...(itemId === undefined ? {} : { itemId }), messages: [{ role: 'user', content: text }], ...extra }), options.slug)),
    undo: async (body: unknown) => answer(await options.handlers.widgetUndo(request('undo', body), options.slug)),
  };
}

/** The `changes` frame of an answer (there must be exactly one). */
export function changesOf(answer: Answer): Extract<Frame, { event: 'changes' }> {
  const changes = answer.frames.filter((frame): frame is Extract<Frame, { event: 'changes' }> => frame.event === 'changes');
  expect(changes, JSON.stringify(answer)).toHaveLength(1);
  return changes[0]!;
}
