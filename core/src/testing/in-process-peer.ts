import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Database } from '../db/index.ts';
import { createSeamRouter, sendWebResponse, toWebRequest } from '../http/index.ts';
import type { Services } from '../index.ts';
import { installExampleAgents } from './example-agents.ts';
import { testServices } from './test-services.ts';

export interface InProcessPeer {
  url: string;
  /** The peer's own services (its database, its OAuth clients, its runs). */
  services: Services;
  /** An OAuth client of the peer for the caller to register it with. */
  client: { clientId: string; clientSecret: string };
  close(): Promise<void>;
}

/**
 * Another instance for A2A tests, in this process: the example agents of `scope` on `database`,
 * A2A switched on, and its discovery, token and A2A routes served over HTTP on a free port, so
 * the caller's outbound client and remote bridge talk to a real peer. `hold` runs before the
 * peer reads each A2A call (its body given), for a test to make the peer slow or wait.
 */
export async function startInProcessPeer(database: Database, options: { scope: string; hold?: (body: string) => Promise<void> }): Promise<InProcessPeer> {
  // The services need the URL (their cards name it), the server needs the services: set once listening.
  const peer: { handlers?: Services['handlers'] } = {};
  const router = createSeamRouter({
    '/.well-known/agent.json': (request) => peer.handlers!.agentCard(request),
    '/.well-known/agent-card.json': (request) => peer.handlers!.agentCardV1(request),
    '/api/oauth/token': (request) => peer.handlers!.oauthToken(request),
    '/api/a2a': async (request) => {
      if (options.hold) await options.hold(await request.clone().text());
      return peer.handlers!.a2a(request);
    },
  });
  const server = http.createServer((req, res) => {
    const route = router.match(new URL(req.url ?? '/', 'http://peer').pathname);
    if (!route) return void res.writeHead(404).end();
    void route.handle(toWebRequest(req, 'http://127.0.0.1', res), route.params).then((response) => sendWebResponse(res, response));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const services = testServices(database, { SERVICE_VENDOR_SCOPE: options.scope, SERVICE_BASE_URL: url });
  peer.handlers = services.handlers;
  const admin = { type: 'ui', id: 'peer-admin', email: 'admin@peer.test', role: 'admin' } as const;
  await installExampleAgents(database, options.scope);
  await services.featureFlags.set(admin, 'a2aHttpEnabled', true);
  const { client, clientSecret } = await services.oauth.clients.register(admin, { name: 'caller', allowedAgents: ['*'], permissions: ['list', 'read', 'execute'] });
  return {
    url,
    services,
    client: { clientId: client.clientId, clientSecret },
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}
