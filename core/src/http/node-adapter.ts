import type { IncomingMessage, ServerResponse } from 'node:http';
import { DomainError } from '../errors/index.ts';

/** A refused body's rest is read and dropped up to this much, or for this long, before the connection closes. */
const LINGER_MAX_BYTES = 16 * 1024 * 1024;
const LINGER_MS = 5_000;

/**
 * A Fetch `Request` for a node:http request, so web-standard handlers serve plain Node servers.
 * Its signal aborts when the response closes before it was finished (the client went away);
 * not on the request's own `close`, which Node emits as soon as the body has been read.
 */
export function toWebRequest(req: IncomingMessage, origin: string, res: ServerResponse): Request {
  // rawHeaders is a flat [name, value, …] list: repeated headers stay separate, as sent.
  const pairs: [string, string][] = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2) pairs.push([req.rawHeaders[i]!, req.rawHeaders[i + 1]!]);
  const headers = new Headers(pairs);
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  return new Request(new URL(req.url ?? '/', origin), {
    method: req.method,
    headers,
    signal: controller.signal,
    ...(hasBody ? { body: bodyOf(req), duplex: 'half' } : {}),
  } as RequestInit);
}

/**
 * The request body as a web stream, read as the handler pulls. A handler that stops early (a
 * body over its limit) cancels it: the rest is then read and dropped, so the answer (413)
 * reaches a client that is still sending, instead of the connection being reset under it; a
 * client that goes on past LINGER_MAX_BYTES or LINGER_MS is cut off. A client that goes away
 * mid-body fails the read with BAD_REQUEST: its mistake, not an error of ours to log.
 */
function bodyOf(req: IncomingMessage): ReadableStream<Uint8Array> {
  let detach = () => {};
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        const onData = (chunk: Buffer) => {
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          if ((controller.desiredSize ?? 0) <= 0) req.pause();
        };
        const onEnd = () => controller.close();
        const onError = (error: Error) => controller.error(new DomainError('BAD_REQUEST', 'The client closed the connection before sending the whole body', { cause: error }));
        req.on('data', onData).once('end', onEnd).once('error', onError);
        req.pause();
        detach = () => req.off('data', onData).off('end', onEnd).off('error', onError);
      },
      pull() {
        req.resume();
      },
      cancel() {
        detach();
        lingerOn(req);
      },
    },
    { highWaterMark: 64 * 1024, size: (chunk) => chunk.byteLength },
  );
}

const lingering = new WeakSet<IncomingMessage>();

/**
 * Once its answer is out, a body still arriving is of no use: the rest is read and dropped as
 * after a refusal (at most LINGER_MAX_BYTES or LINGER_MS), so a handler that answered without
 * reading (a 401, a redirect) does not leave the connection to a slow client until the
 * server's request timeout.
 */
export function dropBodyAfterAnswer(req: IncomingMessage, res: ServerResponse): void {
  res.once('finish', () => lingerOn(req));
}

function lingerOn(req: IncomingMessage): void {
  if (req.complete || req.destroyed || lingering.has(req)) return;
  lingering.add(req);
  let dropped = 0;
  const cutOff = () => req.socket?.destroy();
  const timer = setTimeout(cutOff, LINGER_MS);
  timer.unref();
  // Whoever was reading (a body stream nobody pulls any more) stops getting the bytes.
  req.removeAllListeners('data');
  req.on('data', (chunk: Buffer) => {
    dropped += chunk.byteLength;
    if (dropped > LINGER_MAX_BYTES) cutOff();
  });
  req.once('end', () => clearTimeout(timer)).once('close', () => clearTimeout(timer));
  // A client that gives up while we drop its body is not an error of ours.
  req.on('error', () => clearTimeout(timer));
  req.resume();
}

/** Answers at most this large with a declared length are written whole, in one write. */
const WHOLE_ANSWER_MAX_BYTES = 1024 * 1024;

/** Writes a Fetch `Response` to a node:http response: streamed, or whole when its length is declared and small. */
export async function sendWebResponse(res: ServerResponse, response: Response): Promise<void> {
  // One flat list keeps repeated headers (set-cookie) and costs one call; Node merges a flat list
  // with headers set earlier one by one, losing repeats, so then each is appended instead.
  if (res.getHeaderNames().length > 0) {
    res.statusCode = response.status;
    response.headers.forEach((value, name) => res.appendHeader(name, value));
  } else {
    const headers: string[] = [];
    response.headers.forEach((value, name) => headers.push(name, value));
    res.writeHead(response.status, headers);
  }
  if (!response.body) return void res.end();
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (declared <= WHOLE_ANSWER_MAX_BYTES) return void res.end(Buffer.from(await response.arrayBuffer()));
  const reader = response.body.getReader();
  res.once('close', () => void reader.cancel().catch(() => undefined));
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    res.write(value);
  }
  res.end();
}
