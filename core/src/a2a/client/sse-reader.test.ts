import { describe, expect, it } from 'vitest';
import { readSse } from './sse-reader.ts';

function streamOf(chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({ start: (controller) => (chunks.forEach((c) => controller.enqueue(encoder.encode(c))), controller.close()) });
}

async function collect(body: ReadableStream<Uint8Array>, max?: number) {
  const out = [];
  for await (const message of readSse(body, undefined, max)) out.push(message);
  return out;
}

describe('the SSE reader', () => {
  it('reads ids, events and multi-line data across chunk boundaries', async () => {
    expect(await collect(streamOf(['id: 1\nevent: x\nda', 'ta: a\ndata: b\n\n: keep-alive\n\nid: 2\r\ndata: c\r\n\r\n']))).toEqual([
      { id: '1', event: 'x', data: 'a\nb' },
      { id: '2', event: null, data: 'c' },
    ]);
  });

  it('cuts off a line that never ends and an event that never ends past the cap', async () => {
    const endless = new ReadableStream<Uint8Array>({
      pull: (controller) => controller.enqueue(new TextEncoder().encode('x'.repeat(64 * 1024))),
    });
    await expect(collect(endless, 256 * 1024)).rejects.toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    const manyLines = new ReadableStream<Uint8Array>({ pull: (controller) => controller.enqueue(new TextEncoder().encode(`data: ${'y'.repeat(1000)}\n`)) });
    await expect(collect(manyLines, 256 * 1024)).rejects.toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
  });
});
