/**
 * What the widget may send of its chat history. The stream route refuses more than 100 turns, a
 * turn over 20,000 characters and a body over 256 KiB (core/src/widget/stream-handler.ts), and
 * passes at most an instance's `historyTurns` (1 to 50, MAX_HISTORY_TURNS in widget-keys.ts) to
 * the LLM. So the widget sends only the most recent 50 turns, each clipped, within a byte budget:
 * a long chat is never refused. test/widget/history.test.ts keeps these in step with the server.
 */
export type Turn = { role: 'user' | 'assistant'; content: string };

/** The most turns the server ever passes to the LLM (MAX_HISTORY_TURNS). */
export const MAX_SENT_TURNS = 50;
/** The longest turn the server accepts (MAX_WIDGET_TURN_CHARS), in UTF-16 code units. */
export const MAX_TURN_CHARS = 20_000;
/** The request body stays well under the server's 256 KiB (MAX_WIDGET_BODY_BYTES). */
export const MAX_SENT_BYTES = 200 * 1024;
/** How many turns the panel keeps (and shows again after a reload). */
export const MAX_KEPT_TURNS = 200;

const encoder = new TextEncoder();

/** A turn clipped to what the server accepts; a cut never leaves half a surrogate pair. */
export function clipTurn(content: string): string {
  if (content.length <= MAX_TURN_CHARS) return content;
  let head = content.slice(0, MAX_TURN_CHARS - 1);
  if (/[\uD800-\uDBFF]$/.test(head)) head = head.slice(0, -1);
  return `${head}…`;
}

export const isTurn = (value: unknown): value is Turn =>
  typeof value === 'object' && value !== null && ((value as Turn).role === 'user' || (value as Turn).role === 'assistant') && typeof (value as Turn).content === 'string' && (value as Turn).content.length > 0;

/** The most recent turns, newest kept first: at most MAX_SENT_TURNS, each clipped, within MAX_SENT_BYTES. */
export function recentTurns(history: readonly Turn[]): Turn[] {
  const sent: Turn[] = [];
  let bytes = 100; // the item id and the envelope
  for (let i = history.length - 1; i >= 0 && sent.length < MAX_SENT_TURNS; i--) {
    const turn = history[i];
    if (!isTurn(turn)) continue;
    const clipped: Turn = { role: turn.role, content: clipTurn(turn.content) };
    const size = encoder.encode(JSON.stringify(clipped)).length + 1;
    if (sent.length > 0 && bytes + size > MAX_SENT_BYTES) break;
    bytes += size;
    sent.unshift(clipped);
  }
  return sent;
}
