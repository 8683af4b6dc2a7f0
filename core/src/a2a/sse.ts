import { streamOpened } from '../telemetry/index.ts';
import { rpcResult, type JsonRpcId } from './jsonrpc.ts';

const KEEP_ALIVE_MS = 15_000;

export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
} as const;

/** One SSE frame: `id: <seq>` and a JSON-RPC response whose result is the event of `seq` (in the caller's protocol shape). */
export function sseFrame(requestId: JsonRpcId, seq: number, result: unknown): string {
  return `id: ${seq}\ndata: ${JSON.stringify(rpcResult(requestId, result))}\n\n`;
}

/**
 * A frame without an id: a snapshot of the task (the opening of `tasks/resubscribe`), which is
 * not an event of the log, so it never takes (or repeats) a sequence number.
 */
export function sseSnapshotFrame(requestId: JsonRpcId, result: unknown): string {
  return `data: ${JSON.stringify(rpcResult(requestId, result))}\n\n`;
}

/** A streaming method's failure, as the A2A SDK servers send it: one JSON-RPC error frame in an event stream. */
export function sseErrorResponse(payload: unknown): Response {
  return new Response(`data: ${JSON.stringify(payload)}\n\n`, { status: 200, headers: SSE_HEADERS });
}

/**
 * Streams frames from an async source as an SSE body, with keep-alive comments while idle;
 * stops the source when the client goes away.
 */
export function sseResponse(frames: (signal: AbortSignal) => AsyncIterable<string>, requestSignal?: AbortSignal): Response {
  const controller = new AbortController();
  requestSignal?.addEventListener('abort', () => controller.abort(), { once: true });
  const encoder = new TextEncoder();
  let keepAlive: NodeJS.Timeout | undefined;
  let closed = () => undefined as void;
  const body = new ReadableStream<Uint8Array>({
    async start(stream) {
      closed = streamOpened('a2a');
      keepAlive = setInterval(() => {
        try {
          stream.enqueue(encoder.encode(': keep-alive\n\n'));
        } catch {
          clearInterval(keepAlive);
        }
      }, KEEP_ALIVE_MS);
      try {
        for await (const frame of frames(controller.signal)) stream.enqueue(encoder.encode(frame));
        stream.close();
      } catch (error) {
        if (!controller.signal.aborted) stream.error(error);
      } finally {
        clearInterval(keepAlive);
        closed();
      }
    },
    cancel() {
      clearInterval(keepAlive);
      closed();
      controller.abort();
    },
  });
  return new Response(body, { status: 200, headers: SSE_HEADERS });
}
