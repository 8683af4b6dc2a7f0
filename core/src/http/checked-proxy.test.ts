import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCheckedProxy } from './checked-proxy.ts';
import { createOutboundHttp } from './outbound.ts';

/** Sends a CONNECT for `target` through the proxy; answers the proxy's status line and, once tunnelled, what the far end echoed. */
async function connectThrough(proxyUrl: string, target: string): Promise<{ status: string; echoed: string }> {
  const { port } = new URL(proxyUrl);
  const socket = net.connect({ host: '127.0.0.1', port: Number(port) });
  socket.write(`CONNECT ${target} HTTP/1.1\r\nhost: ${target}\r\n\r\n`);
  let seen = '';
  for await (const chunk of socket) {
    seen += String(chunk);
    if (!seen.includes('\r\n\r\n')) continue;
    if (!seen.startsWith('HTTP/1.1 200')) break;
    if (seen.endsWith('\r\n\r\n')) socket.write('ping');
    if (seen.endsWith('ping')) break;
  }
  socket.destroy();
  const [head = '', body = ''] = seen.split('\r\n\r\n');
  return { status: head.split('\r\n')[0]!, echoed: body };
}

describe('the checked proxy', () => {
  let echo: net.Server;
  let web: http.Server;
  let echoPort = 0;
  let webPort = 0;
  beforeAll(async () => {
    echo = net.createServer((socket) => socket.pipe(socket));
    web = http.createServer((req, res) => res.end(`${req.method} ${req.url} host=${req.headers.host} proxy-auth=${req.headers['proxy-authorization'] ?? 'none'}`));
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
    echoPort = (echo.address() as net.AddressInfo).port;
    webPort = (web.address() as net.AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => echo.close(resolve));
    await new Promise((resolve) => web.close(resolve));
  });

  it('tunnels a CONNECT to an address the policy allows, and refuses one it does not, naming the rule', async () => {
    const open = createOutboundHttp({ allowPrivate: true });
    const strict = createOutboundHttp({ allowPrivate: false });
    const [allowing, refusing] = await Promise.all([startCheckedProxy(open), startCheckedProxy(strict)]);
    try {
      expect(await connectThrough(allowing.url, `localhost:${echoPort}`)).toEqual({ status: 'HTTP/1.1 200 Connection Established', echoed: 'ping' });
      const refused = await connectThrough(refusing.url, `localhost:${echoPort}`);
      expect(refused.status).toBe('HTTP/1.1 403 Forbidden');
      expect(refused.echoed).toContain('SERVICE_OUTBOUND_ALLOW_PRIVATE');
      expect(refusing.refusals).toMatchObject([{ code: 'OUTBOUND_REFUSED' }]);
      expect(allowing.refusals).toEqual([]);
    } finally {
      await Promise.all([allowing.close(), refusing.close(), open.close(), strict.close()]);
    }
  });

  it('forwards a plain-HTTP proxy request to the checked address with its Host, without the proxy headers, and refuses anything but an absolute http URL', async () => {
    const open = createOutboundHttp({ allowPrivate: true });
    const proxy = await startCheckedProxy(open);
    const viaProxy = (path: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const { port } = new URL(proxy.url);
        http
          .get({ host: '127.0.0.1', port, path, headers: { host: `localhost:${webPort}`, 'proxy-authorization': 'Basic eDp5' } }, (res) => {
            let body = '';
            res.on('data', (chunk: Buffer) => (body += String(chunk)));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
          })
          .on('error', reject);
      });
    try {
      expect(await viaProxy(`http://localhost:${webPort}/-/ping?x=1`)).toEqual({ status: 200, body: `GET /-/ping?x=1 host=localhost:${webPort} proxy-auth=none` });
      expect((await viaProxy('/-/ping')).status).toBe(400);
      expect((await viaProxy(`https://localhost:${webPort}/`)).status).toBe(400);
    } finally {
      await proxy.close();
      await open.close();
    }
  });
});
