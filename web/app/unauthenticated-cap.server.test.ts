import http, { type IncomingMessage } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import type { ServiceConfig } from '@service/core/config';
import { clientAddress, createTrustedProxies } from '@service/core/http';
import { createMemoryLogger } from '@service/core/log';
import { afterEach, describe, expect, it } from 'vitest';
import { sessionCookie } from './auth/session-cookie.server.ts';
import { addressKey, carriesBody, createUnauthenticatedCap, presentsHeaderCredential, presentsSignedSession } from './unauthenticated-cap.server.ts';

const headers = (values: Record<string, string>) => ({ headers: values }) as unknown as IncomingMessage;

describe('who counts as one client', () => {
  it('is an IPv4 address as it is, and an IPv6 one by its /64', () => {
    expect(addressKey('127.0.0.1')).toBe('127.0.0.1');
    expect(addressKey('::ffff:10.0.0.7')).toBe('10.0.0.7');
    expect(addressKey('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8:1:2::9')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:DB8:0001:0002:ffff::1')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8:1:3::9')).not.toBe(addressKey('2001:db8:1:2::9'));
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    expect(addressKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
  });
});

describe('what needs a slot and what passes without one', () => {
  it('counts only requests with a body', () => {
    expect(carriesBody(headers({}))).toBe(false);
    expect(carriesBody(headers({ 'content-length': '0' }))).toBe(false);
    expect(carriesBody(headers({ 'content-length': '12' }))).toBe(true);
    expect(carriesBody(headers({ 'transfer-encoding': 'chunked' }))).toBe(true);
  });

  it('lets a bearer or the bridge token past on seam routes, but not on the token endpoint, which reads its body first', () => {
    expect(presentsHeaderCredential(headers({ authorization: 'Bearer abc' }), '/api/a2a')).toBe(true);
    expect(presentsHeaderCredential(headers({ 'x-service-bridge-token': 'abc' }), '/api/llm-bridge')).toBe(true);
    expect(presentsHeaderCredential(headers({ authorization: 'Bearer abc' }), '/api/oauth/token')).toBe(false);
    expect(presentsHeaderCredential(headers({ authorization: 'Basic YTpi' }), '/api/a2a')).toBe(false);
    expect(presentsHeaderCredential(headers({}), '/api/a2a')).toBe(false);
  });

  it('lets a session cookie past only when it bears this service signature', async () => {
    const config = { baseUrl: 'http://127.0.0.1:3000', sessionSecret: 's'.repeat(32) } as ServiceConfig;
    const signed = (await sessionCookie(config).serialize('a-session-id')).split(';')[0]!;
    const signedElsewhere = (await sessionCookie({ ...config, sessionSecret: 'o'.repeat(32) }).serialize('a-session-id')).split(';')[0]!;
    expect(await presentsSignedSession(headers({ cookie: `theme=dark; ${signed}` }), config)).toBe(true);
    expect(await presentsSignedSession(headers({ cookie: signedElsewhere }), config)).toBe(false);
    expect(await presentsSignedSession(headers({ cookie: 'service_session=made-up' }), config)).toBe(false);
    expect(await presentsSignedSession(headers({ cookie: 'theme=dark' }), config)).toBe(false);
    expect(await presentsSignedSession(headers({}), config)).toBe(false);
  });
});

describe('the per-address cap on unauthenticated bodies (real sockets)', () => {
  let server: http.Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (server ? (server.closeAllConnections(), server.close(() => resolve())) : resolve())));

  /** A server under a cap of 2 whose handler reads the body, then answers 200. */
  async function serve(options: { trustedProxies?: string[] } = {}) {
    const logger = createMemoryLogger();
    const trusted = createTrustedProxies(options.trustedProxies ?? []);
    const cap = createUnauthenticatedCap({ perAddress: 2, logger, addressOf: (req) => clientAddress(req.socket.remoteAddress, req.headers['x-forwarded-for'], trusted) });
    server = http.createServer((req, res) => {
      if (!cap.admit(req, res)) return;
      req.resume().once('end', () => res.end('ok'));
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return { port: (server.address() as AddressInfo).port, logger };
  }

  /** A POST whose head and first bytes are sent; `finish()` sends the rest; `status` is the answer's. */
  function slowPost(port: number, localAddress = '127.0.0.1', forwardedFor?: string) {
    const socket = net.connect({ port, host: '127.0.0.1', localAddress });
    socket.on('error', () => undefined);
    socket.write(`POST / HTTP/1.1\r\nhost: x\r\n${forwardedFor ? `x-forwarded-for: ${forwardedFor}\r\n` : ''}content-length: 10\r\n\r\nabcde`);
    const status = new Promise<number>((resolve) => {
      socket.once('data', (chunk: Buffer) => resolve(Number(chunk.toString('latin1').split(' ')[1])));
      socket.once('close', () => resolve(0));
    });
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    return { socket, status, closed, finish: () => socket.write('fghij') };
  }

  const get = (port: number) => new Promise<number>((resolve, reject) => http.get({ port, host: '127.0.0.1', agent: false }, (res) => (res.resume(), resolve(res.statusCode ?? 0))).on('error', reject));
  const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

  it('refuses a third unfinished body from one address with 429 and a closed connection, and warns once', async () => {
    const { port, logger } = await serve();
    const first = slowPost(port);
    const second = slowPost(port);
    await settle();
    const third = slowPost(port);
    expect(await third.status).toBe(429);
    await third.closed;
    expect(await slowPost(port).status).toBe(429);
    expect(logger.records.filter((record) => record.level === 'warn')).toHaveLength(1);
    first.finish();
    second.finish();
    expect([await first.status, await second.status]).toEqual([200, 200]);
  });

  it('still serves requests without a body and other addresses while one address is at its cap', async () => {
    const { port } = await serve();
    slowPost(port);
    slowPost(port);
    await settle();
    expect(await get(port)).toBe(200);
    const elsewhere = slowPost(port, '127.0.0.2');
    elsewhere.finish();
    expect(await elsewhere.status).toBe(200);
  });

  it('gives the slot back when a body has arrived and when its client goes away', async () => {
    const { port } = await serve();
    const first = slowPost(port);
    const second = slowPost(port);
    await settle();
    first.finish();
    expect(await first.status).toBe(200);
    second.socket.destroy();
    await settle();
    const next = [slowPost(port), slowPost(port)];
    for (const post of next) post.finish();
    expect(await Promise.all(next.map((post) => post.status))).toEqual([200, 200]);
  });

  it('counts clients behind a trusted proxy by their X-Forwarded-For, and ignores the header from anyone else', async () => {
    const { port } = await serve({ trustedProxies: ['127.0.0.1'] });
    // Through the proxy (127.0.0.1): two clients at their cap, a third client still gets in.
    slowPost(port, '127.0.0.1', '203.0.113.1');
    slowPost(port, '127.0.0.1', '203.0.113.1');
    await settle();
    expect(await slowPost(port, '127.0.0.1', '203.0.113.1').status).toBe(429);
    const other = slowPost(port, '127.0.0.1', '203.0.113.2');
    other.finish();
    expect(await other.status).toBe(200);
    // Straight from 127.0.0.2 (no proxy): a made-up header does not buy a fresh slot each time.
    slowPost(port, '127.0.0.2', '198.51.100.1');
    slowPost(port, '127.0.0.2', '198.51.100.2');
    await settle();
    expect(await slowPost(port, '127.0.0.2', '198.51.100.3').status).toBe(429);
  });
});
