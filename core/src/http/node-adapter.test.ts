import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { createMemoryLogger } from '../log/index.ts';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readBodyLimited } from './body.ts';
import { errorResponse, json } from './json.ts';
import { dropBodyAfterAnswer, sendWebResponse, toWebRequest } from './node-adapter.ts';

let server: http.Server | undefined;
afterEach(() => new Promise<void>((resolve) => {
  server?.closeAllConnections();
  return server ? server.close(() => resolve()) : resolve();
}));

async function serve(handler: (request: Request) => Promise<Response>): Promise<string> {
  server = http.createServer((req, res) => void handler(toWebRequest(req, 'http://127.0.0.1', res)).then((response) => sendWebResponse(res, response)));
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('the node:http adapter', () => {
  it('keeps the request signal alive after the body is read, while the response streams', async () => {
    let abortedAfterBody: boolean | undefined;
    const url = await serve(async (request) => {
      const text = await request.text();
      await new Promise((resolve) => setTimeout(resolve, 50));
      abortedAfterBody = request.signal.aborted;
      return new Response(`got ${text}`);
    });
    const response = await fetch(url, { method: 'POST', body: 'hello' });
    expect(await response.text()).toBe('got hello');
    expect(abortedAfterBody).toBe(false);
  });

  it('aborts the request signal when the client goes away mid-stream', async () => {
    let aborted: () => void = () => {};
    const abortSeen = new Promise<void>((resolve) => (aborted = resolve));
    const url = await serve(async (request) => {
      request.signal.addEventListener('abort', () => aborted(), { once: true });
      const body = new ReadableStream<Uint8Array>({ start: (controller) => controller.enqueue(new TextEncoder().encode('first\n')) });
      return new Response(body);
    });
    const client = new AbortController();
    const response = await fetch(url, { method: 'POST', body: 'x', signal: client.signal });
    const reader = response.body!.getReader();
    await reader.read();
    client.abort();
    await expect(Promise.race([abortSeen.then(() => 'aborted'), new Promise((r) => setTimeout(() => r('timeout'), 2_000))])).resolves.toBe('aborted');
  });

  it('writes a JSON answer whole, with its length, and streams a body of unknown length in chunks', async () => {
    const url = await serve(async (request) => (new URL(request.url).pathname === '/json' ? json({ hello: 'wörld' }, { status: 201 }) : new Response(new ReadableStream({ start: (c) => (c.enqueue(new TextEncoder().encode('a')), c.close()) }))));
    const raw = async (path: string) =>
      new Promise<string>((resolve, reject) => {
        http.get(`${url}${path}`, (res) => {
          let head = `${res.statusCode} ${res.headers['content-length'] ?? '-'} ${res.headers['transfer-encoding'] ?? '-'} `;
          res.setEncoding('utf8').on('data', (chunk) => (head += chunk)).on('end', () => resolve(head));
        }).on('error', reject);
      });
    expect(await raw('/json')).toBe(`201 ${Buffer.byteLength('{"hello":"wörld"}')} - {"hello":"wörld"}`);
    expect(await raw('/stream')).toBe('200 - chunked a');
  });

  it('answers 413 to a body over the limit, and the client reads it instead of a reset (real socket)', async () => {
    const url = await serve(async (request) => {
      try {
        return json({ length: (await readBodyLimited(request, 1024)).length });
      } catch (error) {
        return errorResponse(error);
      }
    });
    const big = 'x'.repeat(5 * 1024 * 1024);
    const viaFetch = await fetch(url, { method: 'POST', body: big });
    expect(viaFetch.status).toBe(413);
    expect(await viaFetch.json()).toMatchObject({ error: { code: 'PAYLOAD_TOO_LARGE' } });
    // Without a declared length (chunked), so the limit is met while reading.
    const chunked = await new Promise<number>((resolve, reject) => {
      const req = http.request(url, { method: 'POST', headers: { 'transfer-encoding': 'chunked' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      let sent = 0;
      const pump = () => {
        while (sent < 4 * 1024 * 1024) {
          sent += 64 * 1024;
          if (!req.write(Buffer.alloc(64 * 1024, 120))) return void req.once('drain', pump);
        }
        req.end();
      };
      pump();
    });
    expect(chunked).toBe(413);
    // The connection stays usable for a small body afterwards.
    expect(await (await fetch(url, { method: 'POST', body: 'small' })).json()).toEqual({ length: 5 });
  });

  it('fails the body read with BAD_REQUEST when the client goes away mid-body, which errorResponse does not log as an error', async () => {
    const logger = createMemoryLogger();
    let answered: (response: Response) => void = () => {};
    const answer = new Promise<Response>((resolve) => (answered = resolve));
    const url = await serve(async (request) => {
      let response: Response;
      try {
        response = json({ length: (await readBodyLimited(request, 1024 * 1024)).length });
      } catch (error) {
        response = errorResponse(error, logger);
      }
      // The test reads its own copy: the server writes the body of the one it gets.
      answered(response.clone());
      return response;
    });
    const { port } = new URL(url);
    const socket = net.connect(Number(port), '127.0.0.1', () => {
      socket.write('POST / HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: 1000\r\n\r\nfirst bytes');
      setTimeout(() => socket.destroy(), 100);
    });
    const response = await answer;
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: 'BAD_REQUEST' } });
    expect(logger.records.filter((record) => record.level === 'error')).toEqual([]);
  });

  it('after an answer given without reading the body, drops what still arrives and cuts a client that keeps sending once 5 s are up', async () => {
    let lingering!: () => void;
    const lingers = new Promise<void>((resolve) => (lingering = resolve));
    /** Resolves as the server takes in the next bytes of the body it no longer reads. */
    let dropped: () => void = () => {};
    const nextDrop = () => new Promise<void>((resolve) => (dropped = resolve));
    server = http.createServer((req, res) => {
      dropBodyAfterAnswer(req, res);
      // Runs after dropBodyAfterAnswer's own 'finish' listener: the linger and its timer have started.
      res.once('finish', () => (req.on('data', () => dropped()), lingering()));
      toWebRequest(req, 'http://127.0.0.1', res);
      void sendWebResponse(res, json({ error: { code: 'UNAUTHENTICATED' } }, { status: 401 }));
    });
    // Node's keep-alive timeout (5 s of silence, in real time) would also end this quiet connection: only the linger may.
    server.keepAliveTimeout = 0;
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    // The linger's cut-off runs on the fake clock; the sockets on real time.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const socket = net.connect((server.address() as AddressInfo).port, '127.0.0.1');
      socket.on('error', () => undefined);
      const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
      let isClosed = false;
      void closed.then(() => (isClosed = true));
      const answer = new Promise<string>((resolve) => socket.once('data', (chunk: Buffer) => resolve(chunk.toString('latin1'))));
      socket.write('POST / HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: 100000\r\n\r\n');
      expect(await answer).toMatch(/^HTTP\/1.1 401 /);
      await lingers;
      const send = async () => {
        const drop = nextDrop();
        socket.write('x');
        await Promise.race([drop, closed]);
      };
      await send();
      vi.advanceTimersByTime(4_999);
      await send();
      expect(isClosed, 'cut off before 5 s were up').toBe(false);
      vi.advanceTimersByTime(1);
      await closed;
      expect(socket.destroyed).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });
});
