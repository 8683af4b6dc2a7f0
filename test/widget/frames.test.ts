import { encodeWidgetEvent, widgetEventSchemas, type WidgetEventName } from '@service/core/widget';
import { describe, expect, it } from 'vitest';
import { parseFrame } from '../../widget/src/frames.ts';

/** Payloads for each event, valid and not: the bundle's check must agree with the frozen zod schema on every one. */
const candidates: unknown[] = [
  {},
  { content: 'hi' },
  { content: '' },
  { content: 1 },
  { content: 'hi', extra: true },
  { message: 'It failed' },
  { message: null },
  { fallback: true },
  { fallback: false },
  { fallback: true, extra: 1 },
  { fields: [], nodeId: '42', postId: '42' },
  { fields: [{ field: 'title', before: 'a', after: 'b' }], nodeId: '42', postId: '42' },
  { fields: 'nope', nodeId: '42', postId: '42' },
  { fields: [{ field: 'title', before: 'a' }], nodeId: '42', postId: '42' },
  { fields: [{ field: 'title', before: 'a', after: 2 }], nodeId: '42', postId: '42' },
  { fields: [{ field: 'title', before: 'a', after: 'b', x: 1 }], nodeId: '42', postId: '42' },
  { fields: [], nodeId: 42, postId: '42' },
  { fields: [], nodeId: '42' },
  { fields: [], nodeId: '42', postId: '42', extra: 1 },
  [],
  null,
  'text',
  7,
];

describe('the bundle\'s frame check', () => {
  it('agrees with the frozen schemas on every candidate payload', () => {
    for (const event of Object.keys(widgetEventSchemas) as WidgetEventName[]) {
      for (const data of candidates) {
        const expected = widgetEventSchemas[event].safeParse(data).success;
        const parsed = parseFrame(event, JSON.stringify(data));
        expect(parsed === false ? false : parsed !== null, `${event} ${JSON.stringify(data)}`).toBe(expected);
      }
    }
  });

  it('reads every frame the server encodes, refuses a frame that is not JSON, and skips unknown events', () => {
    const frame = encodeWidgetEvent({ event: 'changes', data: { fields: [{ field: 'title', before: 'a', after: 'b' }], nodeId: '42', postId: '42' } });
    const data = /^data: (.*)$/m.exec(frame)![1]!;
    expect(parseFrame('changes', data)).toEqual({ event: 'changes', data: JSON.parse(data) });
    expect(parseFrame('changes', '{"fields": [')).toBe(false);
    expect(parseFrame('text', '')).toBe(false);
    expect(parseFrame('ping', '{}')).toBeNull();
    expect(parseFrame(undefined, '{}')).toBeNull();
    expect(parseFrame('toString', '{}')).toBeNull();
  });

  it('puts an undo token in the SSE id, outside the frozen payload, and refuses one that could break the frame', () => {
    const data = { fields: [{ field: 'title', before: 'a', after: 'b' }], nodeId: '42', postId: '42' };
    const token = 'T'.repeat(43);
    const frame = encodeWidgetEvent({ event: 'changes', data }, token);
    expect(frame).toBe(`id: ${token}\nevent: changes\ndata: ${JSON.stringify(data)}\n\n`);
    expect(parseFrame('changes', /^data: (.*)$/m.exec(frame)![1]!)).toEqual({ event: 'changes', data });
    for (const bad of ['two\nlines', 'with space', '', 'x'.repeat(201)]) expect(() => encodeWidgetEvent({ event: 'changes', data }, bad), JSON.stringify(bad)).toThrow();
  });
});
