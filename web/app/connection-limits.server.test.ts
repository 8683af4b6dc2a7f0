import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createMemoryLogger } from '@service/core/log';
import { afterEach, describe, expect, it } from 'vitest';
import { CONNECTION_LIMITS, connectionLimitsFor, createBoundedServer, openFilesLimit } from './connection-limits.server.ts';

let server: http.Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? (server.closeAllConnections(), server.close(() => resolve())) : resolve())));

describe('the bounded server', () => {
  it('keeps maxConnections below a 1,024-descriptor limit and the timeouts in the order Node needs', () => {
    expect(CONNECTION_LIMITS.maxConnections).toBeLessThanOrEqual(1024 - 256);
    expect(CONNECTION_LIMITS.headersTimeout).toBeLessThan(CONNECTION_LIMITS.requestTimeout);
    expect(CONNECTION_LIMITS.connectionsCheckingInterval).toBeLessThan(CONNECTION_LIMITS.headersTimeout);
  });

  it('keeps a quarter of a small descriptor limit, or 256 of a larger one, for what else the process holds', () => {
    expect(connectionLimitsFor(256).maxConnections).toBe(192);
    expect(connectionLimitsFor(1024).maxConnections).toBe(768);
    expect(connectionLimitsFor(1_048_576).maxConnections).toBe(768);
    expect(connectionLimitsFor(undefined)).toEqual(CONNECTION_LIMITS);
    expect(connectionLimitsFor(256).headersTimeout).toBe(CONNECTION_LIMITS.headersTimeout);
  });

  it('holds more connections where SERVICE_MAX_CONNECTIONS asks for them, never past the descriptor limit less its reserve', () => {
    expect(connectionLimitsFor(20_000, 5_000).maxConnections).toBe(5_000);
    expect(connectionLimitsFor(1024, 5_000).maxConnections).toBe(768);
    expect(connectionLimitsFor(undefined, 5_000).maxConnections).toBe(5_000);
  });

  it('reads the soft open-files limit the system reports, and nothing where it reports none', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'limits-'));
    const file = path.join(dir, 'limits');
    writeFileSync(file, 'Limit                     Soft Limit           Hard Limit           Units     \nMax open files            256                  4096                 files     \n');
    expect(openFilesLimit(file)).toBe(256);
    writeFileSync(file, 'Max open files            unlimited            unlimited            files     \n');
    expect(openFilesLimit(file)).toBeUndefined();
    expect(openFilesLimit(path.join(dir, 'absent'))).toBeUndefined();
    rmSync(dir, { recursive: true });
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
    // Past maxConnections a connection is dropped instead of emitted: the two held are the two emitted.
    const bothHeld = new Promise<void>((resolve) => {
      let accepted = 0;
      server!.on('connection', () => ++accepted === 2 && resolve());
    });
    const held = [await open(), await open()];
    await bothHeld;
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

  /** A connection that sends `first`, then a byte every 100 ms (`trickled` of them so far); `closed` gives the status line it got. */
  function trickle(port: number, first: string) {
    let trickled = 0;
    let timer: NodeJS.Timeout | undefined;
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(first);
      timer = setInterval(() => (trickled++, socket.write('a')), 100);
    });
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    const closed = new Promise<string>((resolve) => socket.on('close', () => (clearInterval(timer), resolve(answer.split('\r\n')[0]!))));
    return { socket, closed, trickled: () => trickled, stop: () => clearInterval(timer) };
  }

  it('answers 408 and closes a connection whose head takes longer than headersTimeout, and leaves one whose head is in to its body', async () => {
    let headIn!: () => void;
    const bodyStarted = new Promise<void>((resolve) => (headIn = resolve));
    server = createBoundedServer((req, res) => (headIn(), void req.resume().once('end', () => res.end('ok'))), createMemoryLogger(), { ...CONNECTION_LIMITS, headersTimeout: 600, requestTimeout: 60_000, connectionsCheckingInterval: 100 });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    // A request whose head is in before the slow head starts: headersTimeout would end it first.
    const body = trickle(port, 'POST / HTTP/1.1\r\nhost: x\r\ncontent-length: 1000\r\n\r\n');
    await bodyStarted;
    const slowHead = trickle(port, 'GET / HTTP/1.1\r\nx-pad: ');
    expect(await slowHead.closed).toBe('HTTP/1.1 408 Request Timeout');
    body.stop();
    const answer = new Promise<string>((resolve) => body.socket.once('data', (chunk: Buffer) => resolve(chunk.toString('latin1').split('\r\n')[0]!)));
    body.socket.write('a'.repeat(1000 - body.trickled()));
    expect(await answer).toBe('HTTP/1.1 200 OK');
    body.socket.destroy();
  });

  it('answers 408 and closes a connection whose body takes longer than requestTimeout', async () => {
    let headIn!: () => void;
    const bodyStarted = new Promise<void>((resolve) => (headIn = resolve));
    server = createBoundedServer((req, res) => (headIn(), void req.resume().once('end', () => res.end('ok'))), createMemoryLogger(), { ...CONNECTION_LIMITS, headersTimeout: 600, requestTimeout: 1_200, connectionsCheckingInterval: 100 });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const slowBody = trickle((server.address() as AddressInfo).port, 'POST / HTTP/1.1\r\nhost: x\r\ncontent-length: 1000\r\n\r\n');
    // Its head is in: headersTimeout is over for it, requestTimeout is the one left.
    await bodyStarted;
    expect(await slowBody.closed).toBe('HTTP/1.1 408 Request Timeout');
  });

});
