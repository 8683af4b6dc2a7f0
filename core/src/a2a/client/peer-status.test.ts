import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testServices, useTestDatabase } from '../../testing/index.ts';
import type { Services } from '../../index.ts';

const t = useTestDatabase();
const admin = { type: 'ui', id: 'admin', email: 'a@x.test', role: 'admin' } as const;
const message = { message: { id: 'm1', role: 'user' as const, parts: [{ type: 'text' as const, text: 'hello' }] } };

/** A v0.3 peer that issues a token only for `our-client:<secret>` and answers every message with a completed task. */
async function peerHost(secret: string) {
  const paths: string[] = [];
  let url = '';
  const server = http.createServer((req, res) => {
    req.resume().on('end', () => {
      paths.push(req.url ?? '');
      const json = (status: number, body: unknown) => void res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (req.url === '/.well-known/agent.json') return json(200, { name: 'peer', description: '', url: `${url}/api/a2a`, version: '1', capabilities: {}, authentication: { tokenEndpoint: `${url}/api/oauth/token` }, skills: [] });
      if (req.url === '/api/oauth/token') {
        const expected = `Basic ${Buffer.from(`our-client:${secret}`).toString('base64')}`;
        return req.headers.authorization === expected ? json(200, { access_token: 'peer-token', expires_in: 600 }) : json(401, { error: 'invalid_client' });
      }
      if (req.url === '/api/a2a') return json(200, { jsonrpc: '2.0', id: 1, result: { kind: 'task', id: 'r1', contextId: 'c', status: { state: 'completed' } } });
      res.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, paths, close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))) };
}

describe('a remote peer can be changed and removed, and shows how the last call went', () => {
  let services: Services;
  let peer: Awaited<ReturnType<typeof peerHost>>;
  beforeAll(async () => {
    services = testServices(t.db);
    peer = await peerHost('first-secret');
  });
  afterAll(() => peer?.close());

  const statusOf = async (id: string) => (await services.peers.list()).find((p) => p.id === id);

  it('records the last answer, then the last failure, and clears the failure on the next answer', async () => {
    await services.peers.register(admin, { id: 'globex', name: 'Globex', baseUrl: peer.url, clientId: 'our-client', clientSecret: 'first-secret' });
    expect(await statusOf('globex')).toMatchObject({ lastContactAt: null, lastError: null });
    await services.a2aClient.send('globex', message);
    await expect.poll(async () => (await statusOf('globex'))?.lastContactAt).not.toBeNull();

    // A changed secret that the peer refuses: the token answer 401 is the peer's last error.
    await services.peers.register(admin, { id: 'globex', name: 'Globex', baseUrl: peer.url, clientId: 'our-client', clientSecret: 'wrong-secret' });
    services.a2aClient.forget('globex');
    await expect(services.a2aClient.send('globex', message)).rejects.toMatchObject({ code: 'UPSTREAM_FAILED' });
    await expect.poll(async () => (await statusOf('globex'))?.lastError?.message).toBe('answered HTTP 401');

    await services.peers.register(admin, { id: 'globex', name: 'Globex', baseUrl: peer.url, clientId: 'our-client', clientSecret: 'first-secret' });
    services.a2aClient.forget('globex');
    await services.a2aClient.send('globex', message);
    await expect.poll(async () => (await statusOf('globex'))?.lastError).toBeNull();
  });

  it('an edit without a secret keeps the sealed one; a new peer without one is refused', async () => {
    const edited = await services.peers.register(admin, { id: 'globex', name: 'Globex Corp', baseUrl: peer.url, clientId: 'our-client' });
    expect(edited.name).toBe('Globex Corp');
    expect((await services.peers.get('globex'))?.name).toBe('Globex Corp');
    expect((await services.peers.credentials('globex'))?.clientSecret).toBe('first-secret');
    await expect(services.peers.register(admin, { id: 'nobody', name: 'Nobody', baseUrl: peer.url, clientId: 'c' })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(await services.peers.get('nobody')).toBeNull();
  });

  it('a removed peer is never called again, though its card and token are still cached; the removal is audited', async () => {
    await services.a2aClient.send('globex', message);
    const calls = peer.paths.length;
    await services.peers.remove(admin, 'globex');
    await expect(services.a2aClient.send('globex', message)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(peer.paths.length).toBe(calls);
    expect(await services.peers.get('globex')).toBeNull();
    await expect(services.peers.remove(admin, 'globex')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(services.peers.remove({ type: 'ui', id: 'm', email: 'm@x.test', role: 'member' }, 'globex')).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await services.audit.flush(); // audit.record is fire-and-forget
    const audit = await services.audit.list({ limit: 20 });
    expect(audit.items.map((entry: { action: string }) => entry.action)).toContain('remote_peer.remove');
  });
});
