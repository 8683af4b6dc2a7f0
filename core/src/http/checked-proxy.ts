import http from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { OutboundRefusedError, type OutboundHttp } from './outbound.ts';

export interface CheckedProxy {
  /** `http://127.0.0.1:<port>`, for the child's proxy settings. */
  url: string;
  /** What the policy refused while the proxy ran: the reason to report when the child then fails. */
  refusals: OutboundRefusedError[];
  close(): Promise<void>;
}

/** Connection-scoped headers a proxy does not pass on (RFC 9110 7.6.1), and the proxy's own. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'proxy-authenticate', 'te', 'trailer', 'upgrade']);
const endToEnd = (headers: http.IncomingHttpHeaders) => Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP.has(name)));

/**
 * A forward proxy on loopback for a child process that makes its own connections (the npm CLI).
 * Each CONNECT tunnel and each plain-HTTP request is resolved once by `outbound.addressFor`,
 * checked against the outbound policy there, and connected to exactly that address: a name that
 * answers differently by the time the child connects cannot slip past the check. HTTPS stays
 * end to end inside the tunnel, so the child still verifies the certificate against the name.
 */
export async function startCheckedProxy(outbound: OutboundHttp, options: { connectTimeoutMs?: number } = {}): Promise<CheckedProxy> {
  const refusals: OutboundRefusedError[] = [];
  const tunnels = new Set<Duplex>();

  /** The checked address, or null once the client has been told why not. */
  async function resolve(target: URL, refuse: (status: number, message: string) => void): Promise<{ address: string; family: number } | null> {
    try {
      return await outbound.addressFor(target);
    } catch (error) {
      if (error instanceof OutboundRefusedError) {
        refusals.push(error);
        refuse(403, error.message);
      } else refuse(502, `${target.host} could not be resolved`);
      return null;
    }
  }

  const server = http.createServer(async (req, res) => {
    let target: URL;
    try {
      target = new URL(req.url ?? '');
    } catch {
      return void res.writeHead(400).end('A proxy request names an absolute http URL\n');
    }
    if (target.protocol !== 'http:') return void res.writeHead(400).end('Plain requests are for http URLs; https goes through CONNECT\n');
    const checked = await resolve(target, (status, message) => res.writeHead(status, { 'content-type': 'text/plain' }).end(`${message}\n`));
    if (!checked) return;
    const upstream = http.request({
      host: checked.address,
      family: checked.family,
      port: target.port || 80,
      method: req.method,
      path: `${target.pathname}${target.search}`,
      headers: { ...endToEnd(req.headers), host: req.headers.host ?? target.host },
      setHost: false,
      timeout: options.connectTimeoutMs ?? 10_000,
    });
    upstream.once('timeout', () => upstream.destroy(new Error('timeout')));
    upstream.once('response', (answer) => {
      upstream.setTimeout(0);
      res.writeHead(answer.statusCode ?? 502, endToEnd(answer.headers));
      answer.pipe(res);
    });
    upstream.once('error', () => (res.headersSent ? res.destroy() : res.writeHead(502, { 'content-type': 'text/plain' }).end(`${target.host} is unreachable\n`)));
    req.pipe(upstream);
  });

  server.on('connect', async (req: http.IncomingMessage, client: Duplex, head: Buffer) => {
    tunnels.add(client);
    client.once('close', () => tunnels.delete(client));
    client.on('error', () => client.destroy());
    let target: URL;
    try {
      target = new URL(`https://${req.url ?? ''}`);
    } catch {
      return void client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
    }
    const checked = await resolve(target, (status, message) => client.end(`HTTP/1.1 ${status} ${status === 403 ? 'Forbidden' : 'Bad Gateway'}\r\ncontent-type: text/plain\r\nconnection: close\r\n\r\n${message}\n`));
    if (!checked || client.destroyed) return;
    const upstream = net.connect({ host: checked.address, family: checked.family, port: Number(target.port || 443), timeout: options.connectTimeoutMs ?? 10_000 });
    tunnels.add(upstream);
    upstream.once('close', () => tunnels.delete(upstream));
    upstream.once('timeout', () => upstream.destroy(new Error('timeout')));
    upstream.once('error', () => (client.writable ? client.end('HTTP/1.1 502 Bad Gateway\r\nconnection: close\r\n\r\n') : client.destroy()));
    upstream.once('connect', () => {
      upstream.setTimeout(0);
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client).on('error', () => undefined);
      client.pipe(upstream);
    });
    client.once('close', () => upstream.destroy());
  });

  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    refusals,
    close: () =>
      new Promise<void>((closed) => {
        for (const socket of tunnels) socket.destroy();
        server.closeAllConnections();
        server.close(() => closed());
      }),
  };
}
