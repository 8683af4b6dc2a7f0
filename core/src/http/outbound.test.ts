import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createOutboundHttp } from './outbound.ts';

/** A local server recording what reached it; handlers by path. */
async function server(routes: Record<string, (req: http.IncomingMessage, res: http.ServerResponse) => void>) {
  const seen: { path: string; authorization?: string }[] = [];
  const instance = http.createServer((req, res) => {
    seen.push({ path: req.url ?? '', authorization: req.headers.authorization });
    (routes[req.url ?? ''] ?? ((_q, r) => r.writeHead(404).end()))(req, res);
  });
  await new Promise<void>((resolve) => instance.listen(0, '127.0.0.1', resolve));
  const port = (instance.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}`, port, seen, close: () => new Promise<void>((resolve) => (instance.closeAllConnections(), instance.close(() => resolve()))) };
}

describe('the outbound HTTP client', () => {
  let a: Awaited<ReturnType<typeof server>>;
  let b: Awaited<ReturnType<typeof server>>;
  const open = createOutboundHttp({ allowPrivate: true });
  const strict = createOutboundHttp({ allowPrivate: false });
  /** Called as a request reaches `/silent`, which never answers. */
  let silentReached = () => {};

  beforeAll(async () => {
    b = await server({
      '/landing': (_req, res) => res.end('landed'),
    });
    a = await server({
      '/json': (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'),
      '/same': (_req, res) => res.writeHead(302, { location: '/json' }).end(),
      '/away': (_req, res) => res.writeHead(302, { location: `${b.url}/landing` }).end(),
      '/file': (_req, res) => res.writeHead(302, { location: 'file:///etc/passwd' }).end(),
      '/loop': (_req, res) => res.writeHead(302, { location: '/loop' }).end(),
      '/big': (_req, res) => res.end(Buffer.alloc(2 * 1024 * 1024, 97)),
      '/declared': (_req, res) => res.writeHead(200, { 'content-length': String(50 * 1024 * 1024) }).end(),
      '/silent': () => silentReached(),
      '/slow-stream': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' }).flushHeaders();
        setTimeout(() => res.end('data: late\n\n'), 400);
      },
    });
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await open.close();
    await strict.close();
  });

  it('reaches an exempt origin on loopback exactly: not another port, not the same address by name', async () => {
    const exemptOrigins = new Set([a.url]);
    const registryClient = createOutboundHttp({ allowPrivate: false, exemptOrigins });
    try {
      expect(await registryClient.json(await registryClient.fetch(`${a.url}/json`))).toEqual({ ok: true });
      await expect(registryClient.assertAllowed(`${a.url}/`)).resolves.toBeUndefined();
      await expect(registryClient.fetch(`${b.url}/landing`)).rejects.toMatchObject({ code: 'OUTBOUND_REFUSED' });
      await expect(registryClient.fetch(`${a.url}/away`, { maxRedirects: 1 })).rejects.toMatchObject({ code: 'OUTBOUND_REFUSED' });
      await expect(registryClient.fetch(`http://localhost:${a.port}/json`)).rejects.toMatchObject({ code: 'OUTBOUND_REFUSED' });
      await expect(registryClient.assertAllowed(`https://127.0.0.1:${a.port}/`)).rejects.toMatchObject({ code: 'OUTBOUND_REFUSED' });
      exemptOrigins.clear();
      await expect(registryClient.fetch(`${a.url}/json`)).rejects.toMatchObject({ code: 'OUTBOUND_REFUSED' });
    } finally {
      await registryClient.close();
    }
  });

  it('refuses loopback and private hosts unless allowed, by address and by name, before anything is sent', async () => {
    const before = a.seen.length;
    await expect(strict.fetch(`${a.url}/json`)).rejects.toMatchObject({ code: 'OUTBOUND_REFUSED', message: expect.stringContaining(`127.0.0.1:${a.port}`) });
    await expect(strict.fetch(`http://localhost:${a.port}/json`)).rejects.toMatchObject({ code: 'OUTBOUND_REFUSED', message: expect.stringMatching(/localhost.*SERVICE_OUTBOUND_ALLOW_PRIVATE/) });
    await expect(strict.fetch(`http://[::ffff:127.0.0.1]:${a.port}/json`)).rejects.toMatchObject({ code: 'OUTBOUND_REFUSED' });
    await expect(strict.assertAllowed(`http://localhost:${a.port}/`)).rejects.toMatchObject({ code: 'OUTBOUND_REFUSED' });
    expect(a.seen.length).toBe(before);
    const response = await open.fetch(`${a.url}/json`);
    expect(await open.json(response)).toEqual({ ok: true });
  });

  it('refuses other schemes and credentials in URLs', async () => {
    await expect(open.fetch('file:///etc/passwd')).rejects.toMatchObject({ code: 'OUTBOUND_REFUSED', message: expect.stringContaining('only http and https') });
    await expect(open.fetch(`http://user:pw@127.0.0.1:${a.port}/json`)).rejects.toMatchObject({ code: 'OUTBOUND_REFUSED' });
  });

  it('hands a redirect back unless asked to follow; then checks every hop and keeps credentials at their origin', async () => {
    const manual = await open.fetch(`${a.url}/same`);
    expect(manual.status).toBe(302);
    const same = await open.fetch(`${a.url}/same`, { maxRedirects: 2, headers: { authorization: 'Bearer secret' } });
    expect(await same.json()).toEqual({ ok: true });
    expect(a.seen.at(-1)).toMatchObject({ path: '/json', authorization: 'Bearer secret' });
    const away = await open.fetch(`${a.url}/away`, { maxRedirects: 2, headers: { authorization: 'Bearer secret' } });
    expect(await away.text()).toBe('landed');
    expect(b.seen.at(-1)).toEqual({ path: '/landing', authorization: undefined });
    await expect(open.fetch(`${a.url}/file`, { maxRedirects: 2 })).rejects.toMatchObject({ code: 'OUTBOUND_REFUSED' });
    expect((await open.fetch(`${a.url}/loop`, { maxRedirects: 3 })).status).toBe(302);
  });

  it('times out a silent server when its timeout is up and not before, but not a stream that answered its headers', async () => {
    const client = createOutboundHttp({ allowPrivate: true });
    // A connection already open, so the call below starts no connect timer: its own timeout is the only timer on the fake clock.
    expect(await client.json(await client.fetch(`${a.url}/json`))).toEqual({ ok: true });
    const reached = new Promise<void>((resolve) => (silentReached = resolve));
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      let settled = false;
      const call = client.fetch(`${a.url}/silent`, { timeoutMs: 200 });
      call.then(
        () => (settled = true),
        () => (settled = true),
      );
      await reached;
      vi.advanceTimersByTime(199);
      for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
      expect(settled, 'settled before its timeout was up').toBe(false);
      vi.advanceTimersByTime(1);
      await expect(call).rejects.toMatchObject({ code: 'UPSTREAM_FAILED', message: `127.0.0.1:${a.port} did not answer within 200 ms` });
    } finally {
      vi.useRealTimers();
      await client.close();
    }
    const stream = await open.fetch(`${a.url}/slow-stream`, { timeoutMs: 200, streaming: true });
    expect(await stream.text()).toBe('data: late\n\n');
  });

  it('caps the size of an answer, counted as it arrives and as declared', async () => {
    await expect((await open.fetch(`${a.url}/big`, { maxBytes: 1024 * 1024 })).arrayBuffer()).rejects.toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    await expect(open.json(await open.fetch(`${a.url}/big`), 1024)).rejects.toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    await expect((await open.fetch(`${a.url}/declared`)).arrayBuffer()).rejects.toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
  });
});
