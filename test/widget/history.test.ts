import { MAX_HISTORY_TURNS, MAX_WIDGET_BODY_BYTES, MAX_WIDGET_TURN_CHARS, MAX_WIDGET_TURNS } from '@service/core/widget';
import { describe, expect, it } from 'vitest';
import { clipTurn, MAX_SENT_BYTES, MAX_SENT_TURNS, MAX_TURN_CHARS, recentTurns, type Turn } from '../../widget/src/history.ts';

const chat = (turns: number, content: (i: number) => string = (i) => `turn ${i}`): Turn[] => Array.from({ length: turns }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: content(i) }));
const body = (messages: Turn[]) => JSON.stringify({ itemId: '42', messages });

describe('the turns the widget sends', () => {
  it('are capped as the server caps them: the LLM\'s most, never over what the route accepts', () => {
    expect(MAX_SENT_TURNS).toBe(MAX_HISTORY_TURNS);
    expect(MAX_SENT_TURNS).toBeLessThanOrEqual(MAX_WIDGET_TURNS);
    expect(MAX_TURN_CHARS).toBe(MAX_WIDGET_TURN_CHARS);
    expect(MAX_SENT_BYTES).toBeLessThan(MAX_WIDGET_BODY_BYTES);
  });

  it('are the most recent ones, however long the chat (>50 exchanges)', () => {
    const sent = recentTurns(chat(301));
    expect(sent).toHaveLength(MAX_SENT_TURNS);
    expect(sent.at(-1)).toEqual({ role: 'user', content: 'turn 300' });
    expect(sent[0]).toEqual({ role: 'assistant', content: 'turn 251' });
    expect(recentTurns(chat(3))).toEqual(chat(3));
  });

  it('fit the route\'s turn and body limits even when every turn is at its longest', () => {
    for (const long of [(i: number) => `${i} ${'é'.repeat(30_000)}`, (i: number) => `${i} ${'"\u0001'.repeat(15_000)}`, () => '😀'.repeat(15_000)]) {
      const sent = recentTurns(chat(120, long));
      expect(sent.length).toBeGreaterThan(0);
      expect(sent.length).toBeLessThanOrEqual(MAX_SENT_TURNS);
      for (const turn of sent) expect(turn.content.length).toBeLessThanOrEqual(MAX_WIDGET_TURN_CHARS);
      expect(Buffer.byteLength(body(sent))).toBeLessThanOrEqual(MAX_WIDGET_BODY_BYTES);
      expect(sent.at(-1)!.content.startsWith('119') || sent.at(-1)!.content.startsWith('😀')).toBe(true);
    }
  });

  it('clip a long turn without splitting a surrogate pair, and skip what is not a turn', () => {
    const clipped = clipTurn('😀'.repeat(MAX_TURN_CHARS));
    expect(clipped.length).toBeLessThanOrEqual(MAX_TURN_CHARS);
    expect(clipped.endsWith('😀…')).toBe(true);
    expect(recentTurns([{ role: 'user', content: '' }, { role: 'system', content: 'x' } as never, null as never, { role: 'user', content: 'hi' }])).toEqual([{ role: 'user', content: 'hi' }]);
  });
});
