import { z } from 'zod';

/**
 * The widget stream's SSE wire format. FROZEN: existing widgets depend on these event names and
 * payload members; never rename or remove one. The bundle's parser tests use the same schemas.
 */
export const widgetEventSchemas = {
  text: z.object({ content: z.string() }).strict(),
  changes: z
    .object({
      fields: z.array(z.object({ field: z.string(), before: z.string(), after: z.string() }).strict()),
      nodeId: z.string(),
      postId: z.string(),
    })
    .strict(),
  error: z.object({ message: z.string() }).strict(),
  done: z.union([z.object({}).strict(), z.object({ fallback: z.literal(true) }).strict()]),
} as const;

export type WidgetEventName = keyof typeof widgetEventSchemas;
export type WidgetEvent = { [K in WidgetEventName]: { event: K; data: z.infer<(typeof widgetEventSchemas)[K]> } }[WidgetEventName];

/**
 * One SSE frame, validated against the frozen schema before it is written. `id` is the SSE
 * protocol's event id, outside the payload: a `changes` event the widget can undo carries its
 * undo token there (printable ASCII without spaces, so it cannot break the frame).
 */
export function encodeWidgetEvent(event: WidgetEvent, id?: string): string {
  const data = widgetEventSchemas[event.event].parse(event.data);
  if (id !== undefined && !/^[\x21-\x7e]{1,200}$/.test(id)) throw new Error('an SSE event id must be printable ASCII without spaces');
  return `${id === undefined ? '' : `id: ${id}\n`}event: ${event.event}\ndata: ${JSON.stringify(data)}\n\n`;
}
