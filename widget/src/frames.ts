/**
 * The frozen widget events (core/src/widget/events.ts), checked as strictly as the server's zod
 * schemas check them (zod itself is too big for the bundle). A frame that fails is not shown:
 * the turn ends with a visible error instead. test/widget/frames.test.ts holds the two to agreement.
 */
export type Change = { field: string; before: string; after: string };

export type WidgetFrame =
  | { event: 'text'; data: { content: string } }
  | { event: 'changes'; data: { fields: Change[]; nodeId: string; postId: string } }
  | { event: 'error'; data: { message: string } }
  | { event: 'done'; data: { fallback?: true } };

type Obj = Record<string, unknown>;
const isObject = (value: unknown): value is Obj => typeof value === 'object' && value !== null && !Array.isArray(value);
/** Exactly these keys, each a string (zod's `.strict()` objects of strings). */
const strings = (value: unknown, keys: string[]): value is Obj =>
  isObject(value) && Object.keys(value).length === keys.length && keys.every((key) => typeof value[key] === 'string');

const valid: Record<WidgetFrame['event'], (data: unknown) => boolean> = {
  text: (data) => strings(data, ['content']),
  error: (data) => strings(data, ['message']),
  changes: (data) =>
    isObject(data) &&
    Object.keys(data).length === 3 &&
    Array.isArray(data.fields) &&
    data.fields.every((field) => strings(field, ['field', 'before', 'after'])) &&
    typeof data.nodeId === 'string' &&
    typeof data.postId === 'string',
  done: (data) => isObject(data) && (Object.keys(data).length === 0 || (Object.keys(data).length === 1 && data.fallback === true)),
};

/**
 * One SSE frame: the frame when it is a frozen event with a valid payload, `null` for an event
 * name the widget does not know (skipped, as SSE clients do), and `false` when it fails the schema.
 */
export function parseFrame(event: string | undefined, data: string): WidgetFrame | null | false {
  if (!event || !Object.prototype.hasOwnProperty.call(valid, event)) return null;
  let payload: unknown;
  try {
    payload = JSON.parse(data);
  } catch {
    return false;
  }
  return valid[event as WidgetFrame['event']](payload) ? ({ event, data: payload } as WidgetFrame) : false;
}
