import type http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { createMemoryLogger } from '@service/core/log';
import { afterEach, describe, expect, it } from 'vitest';
import { CONNECTION_LIMITS, createBoundedServer } from './connection-limits.server.ts';

let server: http.Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? (server.closeAllConnections(), server.close(() => resolve())) : resolve())));

describe('the bounded server', () => {
  it('keeps maxConnections below a 1,024-descriptor limit and the timeouts in the order Node needs', () => {
    expect(CONNECTION_LIMITS.maxConnections).toBeLessThanOrEqual(1024 - 256);
    expect(CONNECTION_LIMITS.headersTimeout).toBeLessThan(CONNECTION_LIMITS.requestTimeout);
    expect(CONNECTION_LIMITS.connectionsCheckingInterval).toBeLessThan(CONNECTION_LIMITS.headersTimeout);
  });

  it('closes connections past maxConnections at once, serves the ones it holds, and logs the refusals once', async () => {
    const logger = createMemoryLogger();
    server = createBoundedServer((_req, res) => res.end('ok'), logger, { ...CONNECTION_LIMITS, maxConnections: 2 });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const open = () =>
      new Promise<net.Socket>((resolve, reject) => {
        const socket = net.connect(port, '127.0.0.1', () => resolve(socket)).on('error', reject);
      });
    const held = [await open(), await open()];
    await new Promise((resolve) => setTimeout(resolve, 50));
    const refused = await Promise.all([open(), open()]);
    await Promise.all(refused.map((socket) => new Promise((resolve) => (socket.destroyed ? resolve(null) : socket.once('close', resolve)))));
    const answer = await new Promise<string>((resolve) => {
      held[0]!.once('data', (chunk: Buffer) => resolve(chunk.toString('latin1')));
      held[0]!.write('GET / HTTP/1.1\r\nhost: x\r\n\r\n');
    });
    expect(answer).toMatch(/^HTTP\/1.1 200 /);
    const warnings = logger.records.filter((record) => record.level === 'warn');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.message).toContain('maxConnections');
    for (const socket of held) socket.destroy();
  });

  it('answers 408 and closes a connection whose head or body takes longer than its timeout', async () => {
    server = createBoundedServer((req, res) => void req.resume().once('end', () => res.end('ok')), createMemoryLogger(), { ...CONNECTION_LIMITS, headersTimeout: 600, requestTimeout: 1_200, connectionsCheckingInterval: 100 });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    /** Sends `first`, then a byte every 100 ms; answers the status line it got and when, or what it had when the connection closed. */
    const trickle = (first: string) =>
      new Promise<{ answer: string; afterMs: number }>((resolve) => {
        const started = Date.now();
        let answer = '';
        const socket = net.connect(port, '127.0.0.1', () => socket.write(first));
        const timer = setInterval(() => socket.write('a'), 100);
        socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
        socket.on('error', () => undefined);
        socket.on('close', () => (clearInterval(timer), resolve({ answer: answer.split('\r\n')[0]!, afterMs: Date.now() - started })));
      });
    const [slowHead, slowBody] = await Promise.all([trickle('GET / HTTP/1.1\r\nx-pad: '), trickle('POST / HTTP/1.1\r\nhost: x\r\ncontent-length: 1000\r\n\r\n')]);
    expect(slowHead.answer).toBe('HTTP/1.1 408 Request Timeout');
    expect(slowHead.afterMs).toBeLessThan(1_200);
    expect(slowBody.answer).toBe('HTTP/1.1 408 Request Timeout');
    expect(slowBody.afterMs).toBeGreaterThanOrEqual(1_200);
    expect(slowBody.afterMs).toBeLessThan(2_000);
  });
});
