/**
 * The standalone MCP server: the connector primitives over stdio or Streamable HTTP.
 *
 *   service-mcp --stdio            credentials of a registered OAuth client in
 *                                  SERVICE_MCP_CLIENT_ID / SERVICE_MCP_CLIENT_SECRET (never argv)
 *   service-mcp --http [--port N]  bearer JWT from the instance's token endpoint on every request
 *
 * Storage is the instance's: MONGODB_URI, or the embedded default's data dir.
 * Logs go to stderr; in stdio mode stdout carries only the protocol.
 */
import '@service/core/node-engine/require';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { startServices } from '@service/core/boot';
import { DomainError } from '@service/core/errors';
import { sendWebResponse, toWebRequest } from '@service/core/http';
import { createProtectedResourceMetadataHandler, PROTECTED_RESOURCE_METADATA_PATH, resourceMetadataUrl } from '@service/core/auth/oauth';
import { createLogger } from '@service/core/log';
import { buildMcpServer, connectStdio } from '@service/core/mcp';

const args = process.argv.slice(2);
const mode = args.includes('--stdio') ? 'stdio' : args.includes('--http') ? 'http' : null;
const logger = createLogger({ level: 'info', stream: 'stderr' });
const STOP_DEADLINE_MS = 5_000;

async function main() {
  if (!mode) {
    process.stderr.write('usage: service-mcp --stdio | --http [--port N]\n');
    process.exit(2);
  }
  const started = await startServices(process.env, { logger, role: 'mcp-server', createAdmin: false, embeddedRegistry: false });
  const { services } = started;
  let closeTransport: () => Promise<void> = async () => {};
  let stopping: Promise<void> | undefined;
  /** Stops once, whatever asked first (the client closing stdin, a signal): transport, then services and database. */
  const stop = (reason: string) =>
    (stopping ??= (async () => {
      logger.info(`mcp-server stopping: ${reason}`);
      // A database that does not answer must not keep the process (and the client waiting on it) alive.
      setTimeout(() => process.exit(1), STOP_DEADLINE_MS).unref();
      try {
        await closeTransport();
        await started.stop();
      } catch (error) {
        logger.error('mcp-server did not stop cleanly', { error });
        process.exit(1);
      }
      process.exit(0);
    })());
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, () => void stop(signal));

  if (mode === 'stdio') {
    const clientId = process.env.SERVICE_MCP_CLIENT_ID;
    const clientSecret = process.env.SERVICE_MCP_CLIENT_SECRET;
    if (!clientId || !clientSecret) throw new Error('--stdio needs SERVICE_MCP_CLIENT_ID and SERVICE_MCP_CLIENT_SECRET (a client registered under Administration › A2A clients)');
    const client = await services.oauth.clients.authenticate(clientId, clientSecret);
    if (!client) throw new Error(`the OAuth client ${clientId} is unknown, revoked, or its secret is wrong`);
    // Grants are read again for every request, so a revocation takes effect at once and tools/list
    // shows what the client may call now.
    const actor = async () => {
      const current = await services.oauth.clients.current(clientId);
      if (!current || current.revoked) throw new DomainError('UNAUTHENTICATED', 'The MCP client was revoked');
      return { type: 'a2a' as const, id: `oauth:${clientId}`, clientId, grants: { allowedAgents: current.allowedAgents, permissions: current.permissions, allowedPrimitives: current.allowedPrimitives } };
    };
    const server = buildMcpServer({ registry: services.primitives, actor, version: services.version, logger });
    const transport = new StdioServerTransport();
    closeTransport = () => server.close();
    // The SDK's stdio transport does not watch for the end of its input: a client that closes our
    // stdin (or exits) is done with us.
    process.stdin.once('end', () => void stop('stdin closed'));
    process.stdin.once('close', () => void stop('stdin closed'));
    // A line that cannot be read is answered (-32700 / -32600, id null) and logged, not dropped in silence.
    await connectStdio(server, transport, logger);
    logger.info(`mcp-server ready on stdio for client ${clientId}`, { node: process.version });
    return;
  }

  const portIndex = args.indexOf('--port');
  const port = portIndex >= 0 ? Number(args[portIndex + 1]) : Number(process.env.PORT ?? 0);
  const host = process.env.HOST ?? '127.0.0.1';
  // This server is its own OAuth protected resource: tokens bound to its public URL (SERVICE_MCP_PUBLIC_URL,
  // else the address it listens on), issued by the web app (SERVICE_BASE_URL) after an admin's consent.
  let listening = `http://${host}:${port}/mcp`;
  const resource = () => services.config.mcpPublicUrl ?? listening;
  const mcp = services.mcpHandlerFor(resource);
  const resourceMetadata = createProtectedResourceMetadataHandler({ resource, authorizationServer: () => services.config.baseUrl, name: `${services.config.identity.productName} MCP` });
  // RFC 9728 §3.1: the root form, and the one suffixed with the resource's own path (`/mcp`, or the public URL's).
  const metadataPaths = () => new Set([PROTECTED_RESOURCE_METADATA_PATH, new URL(resourceMetadataUrl(resource())).pathname]);
  const server = http.createServer((req, res) => {
    const origin = `http://${req.headers.host ?? `${host}:${port}`}`;
    const path = new URL(req.url ?? '/', origin).pathname;
    const route = path === '/mcp' ? mcp : path === '/metrics' ? services.handlers.metrics : metadataPaths().has(path) ? resourceMetadata : null;
    const handle = route ? route(toWebRequest(req, origin, res)) : Promise.resolve(new Response('Not Found', { status: 404 }));
    handle
      .then((response) => sendWebResponse(res, response))
      .catch((error: unknown) => {
        logger.error('mcp request failed', { error });
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
  });
  closeTransport = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    });
  server.listen(port, host, () => {
    const address = server.address() as AddressInfo;
    listening = `http://${host.includes(':') ? `[${host}]` : host}:${address.port}/mcp`;
    logger.info(`mcp-server listening on http://${host}:${address.port}/mcp`, { node: process.version });
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
