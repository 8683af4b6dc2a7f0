/** One server-sent event: its `id:` (null without one) and its `data:` parsed as JSON. */
export interface SseFrame {
  id: number | null;
  data: unknown;
}

/**
 * Reads an event-stream response's frames until the stream ends or `stopAfter` frames arrived,
 * then lets go of the body (dropping the connection, as a client that stops reading does).
 * Frames without `data:` (keep-alive comments) are skipped.
 */
export async function readSseFrames(response: Response, stopAfter = Infinity): Promise<SseFrame[]> {
  const out: SseFrame[] = [];
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    while (out.length < stopAfter) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0 && out.length < stopAfter) {
        const raw = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = /^data: (.*)$/m.exec(raw);
        if (!data) continue;
        const id = /^id: (\d+)$/m.exec(raw);
        out.push({ id: id ? Number(id[1]) : null, data: JSON.parse(data[1]!) });
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return out;
}
