import net from 'node:net';
import { createUserStore } from '@service/core/auth';
import { useTestDatabase } from '@service/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startA2aHost } from '../helpers/a2a.ts';
import { rawRequest } from '../helpers/raw-http.ts';
import { signInCookie, type RunningService } from '../helpers/service-process.ts';

/**
 * Issue 25, item 6 (the web server's part), on the wire: the real server (production build),
 * its own log, and clients that send what browsers never do.
 */
const t = useTestDatabase();
let service: RunningService;
let token: string;
const PASSWORD = 'correct horse battery';

beforeAll(async () => {
  await createUserStore(t.db.models).create({ email: 'ops@example.com', password: PASSWORD, role: 'admin' });
  ({ service, token } = await startA2aHost(t.db, { mongodbUri: t.uri, scope: '@acme' }));
});

afterAll(async () => {
  await service?.stop();
});

/** What the service logged at warn or error since `from` (an offset into its output). */
function problemsLoggedSince(from: number): string[] {
  return service
    .output()
    .slice(from)
    .split('\n')
    .filter((line) => /"level":"(warn|error)"/.test(line) || /^\s+at /.test(line));
}

/** Sends a request's head and the first bytes of a longer body, then goes away; resolves once the socket is closed. */
function sendPartBodyAndLeave(path: string, headers: Record<string, string>): Promise<void> {
  const { port } = new URL(service.url);
  return new Promise<void>((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1', () => {
      const head = Object.entries({ host: `127.0.0.1:${port}`, 'content-length': '1000', ...headers })
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join('');
      socket.write(`POST ${path} HTTP/1.1\r\n${head}\r\n{"jsonrpc":"2.0","id":1,`);
      setTimeout(() => socket.destroy(), 500);
    });
    socket.on('close', () => resolve());
    socket.on('error', reject);
  });
}

describe('an address that cannot be decoded', () => {
  it('answers a plain 400 without a stack trace or paths, whichever route it would have reached', async () => {
    const from = service.output().length;
    for (const path of ['/%ff', '/assets/%ff', '/administration/%ff', '/a2a/%ff/x', '/sign-in/%E0%A4%A']) {
      const response = await rawRequest(`${service.url}${path}`);
      expect(response.status, path).toBe(400);
      expect(response.headers['content-type'], path).toMatch(/^text\/plain/);
      expect(response.body, path).toBe('Bad Request\n');
      expect(response.headers['x-content-type-options'], path).toBe('nosniff');
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(problemsLoggedSince(from)).toEqual([]);
  });
});

describe('a client that goes away mid-body', () => {
  it('is no error of the service: nothing is logged at warn or error', async () => {
    const cookie = await signInCookie(service.url, 'ops@example.com', PASSWORD);
    const from = service.output().length;
    const json = { 'content-type': 'application/json' };
    await Promise.all([
      sendPartBodyAndLeave('/api/a2a', { ...json, authorization: `Bearer ${token}` }),
      sendPartBodyAndLeave('/api/mcp', { ...json, accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` }),
      sendPartBodyAndLeave('/api/oauth/token', { 'content-type': 'application/x-www-form-urlencoded' }),
      sendPartBodyAndLeave('/sign-in', { 'content-type': 'application/x-www-form-urlencoded' }),
      sendPartBodyAndLeave('/api/trpc/a2a.clients.register', { ...json, cookie }),
    ]);
    // The service is still answering, and has had time to log whatever it would.
    const health = await rawRequest(`${service.url}/healthz`);
    expect(health.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(problemsLoggedSince(from)).toEqual([]);
  });
});

describe('a signed-in tRPC body over its limit (8 MiB)', () => {
  it('answers 413 with a JSON error naming the limit, not a reset, and the next call works', async () => {
    const cookie = await signInCookie(service.url, 'ops@example.com', PASSWORD);
    const oversized = JSON.stringify({ name: 'x'.repeat(9 * 1024 * 1024), allowedAgents: ['*'], permissions: ['execute'] });
    const headers = { 'content-type': 'application/json', cookie };
    for (const expect100 of [false, true]) {
      const response = await rawRequest(`${service.url}/api/trpc/a2a.clients.register`, { method: 'POST', headers: expect100 ? { ...headers, expect: '100-continue' } : headers, body: oversized });
      expect(response.status).toBe(413);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(JSON.parse(response.body)).toMatchObject({ error: { code: 'PAYLOAD_TOO_LARGE', message: expect.stringContaining(String(8 * 1024 * 1024)) } });
    }
    const list = await rawRequest(`${service.url}/api/trpc/a2a.clients.list`, { headers: { cookie } });
    expect(list.status).toBe(200);
  });
});
