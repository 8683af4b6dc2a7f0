import '@service/core/node-engine/require';
import type http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequestHandler } from '@remix-run/express';
import type { ServerBuild } from '@remix-run/node';
import express from 'express';
import { startBackgroundWork, startServices } from '@service/core/boot';
import { startAgentRuntime, type AgentRuntime } from '@service/core/runtime';
import { createLogger } from '@service/core/log';
import { findFreePort, isPortFree } from '@service/core/net';
import { clientAddress, createTrustedProxies, dropBodyAfterAnswer, RETRY_AFTER_SECONDS } from '@service/core/http';
import { createSeamListener } from './seam-routes.ts';
import { adminSecurityHeaders, cspNonce, isCrossSiteRequest, trustedOrigins } from './app/http-security.server.ts';
import { answerExpressError } from './app/express-errors.server.ts';
import { connectionLimitsFor, createBoundedServer, openFilesLimit } from './app/connection-limits.server.ts';
import { carriesBody, createUnauthenticatedCap, MAX_UNAUTHENTICATED_BODIES_PER_ADDRESS, presentsSignedSession } from './app/unauthenticated-cap.server.ts';

// web/, from web/server.ts (dev, under tsx) or from web/build/server.js (built).
const here = fileURLToPath(new URL(import.meta.url.endsWith('/build/server.js') ? '..' : '.', import.meta.url)).replace(/\/$/, '');
const dev = process.argv.includes('--dev');
const logger = createLogger({ level: 'info' });

/** Without an explicit PORT, take 3000 when it is free, else any free port (machines are shared). */
async function choosePort(): Promise<string> {
  if (process.env.PORT && process.env.PORT !== '0') return process.env.PORT;
  const host = process.env.HOST ?? '127.0.0.1';
  if (process.env.PORT === '0') return String(await findFreePort(host));
  return (await isPortFree(host, 3000)) ? '3000' : String(await findFreePort(host));
}

async function main() {
  const port = await choosePort();
  // Without SERVICE_DATA_DIR the data dir is the checkout's .data, whichever directory the process was started from.
  const started = await startServices({ ...process.env, PORT: port });
  const { services } = started;
  const { config } = services;

  const vite = dev
    ? await import('vite').then((v) => v.createServer({ root: here, server: { middlewareMode: true } }))
    : undefined;
  const build = vite
    ? () => vite.ssrLoadModule('virtual:remix/server-build') as Promise<ServerBuild>
    : ((await import(path.join(here, 'build/server/index.js'))) as ServerBuild);

  // Behind a trusted reverse proxy the client is whom its X-Forwarded-For names; elsewhere the peer.
  const trustedProxies = createTrustedProxies(config.trustedProxies);
  const addressOf = (req: http.IncomingMessage) => clientAddress(req.socket.remoteAddress, req.headers['x-forwarded-for'], trustedProxies);

  const app = express();
  app.disable('x-powered-by');
  if (vite) app.use(vite.middlewares);
  else {
    app.use('/assets', express.static(path.join(here, 'build/client/assets'), { immutable: true, maxAge: '1y' }));
    app.use(express.static(path.join(here, 'build/client'), { maxAge: '1h' }));
  }
  // While the database cannot be reached, a page that needs it says so at once (503, Retry-After).
  app.use((_req, res, next) => {
    if (services.database.available()) return next();
    res.status(503).set({ 'retry-after': String(RETRY_AFTER_SECONDS), 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' }).send('The service cannot reach its database right now; try again in a few seconds.\n');
  });
  // Each admin response's CSP nonce, for entry.server.tsx to put on the page's inline scripts.
  const nonces = new WeakMap<http.IncomingMessage, string>();
  app.all('*', createRequestHandler({ build, getLoadContext: (req) => ({ services, cspNonce: nonces.get(req), clientAddress: addressOf(req) }) }));
  app.use(answerExpressError(logger));

  // The admin UI is cookie-authenticated: its security headers go on every answer, and a
  // browser's state-changing request from another site is refused before anything reads it.
  const origins = trustedOrigins(config.baseUrl);
  const adminUi = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const nonce = dev ? undefined : cspNonce();
    if (nonce) nonces.set(req, nonce);
    for (const [name, value] of Object.entries(adminSecurityHeaders({ nonce, dev }))) res.setHeader(name, value);
    if (isCrossSiteRequest(req.method, req.headers, origins)) {
      res.writeHead(403, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' }).end('Cross-site request refused\n');
      return;
    }
    app(req, res);
  };

  // Machine-facing routes go straight to their core handlers; everything else is the admin UI.
  // A request without credentials counts against its address while its body arrives, so slow
  // bodies from one client cannot take every connection (docs/operations.md, "Connection limits").
  const unauthenticated = createUnauthenticatedCap({ perAddress: MAX_UNAUTHENTICATED_BODIES_PER_ADDRESS, logger, addressOf });
  const seam = createSeamListener(services, logger, unauthenticated);
  // The A2A gRPC binding on its own port, before the web port opens so the card lists it from the first request.
  if (config.a2aGrpcPort !== undefined) {
    const grpcPort = await services.a2aGrpc.listen(config.host, config.a2aGrpcPort, config.a2aGrpcTls);
    logger.info(`A2A gRPC binding listening on ${config.host}:${grpcPort} (${config.a2aGrpcTls ? 'TLS' : 'plaintext HTTP/2'})`, { port: grpcPort, tls: !!config.a2aGrpcTls });
  }
  const server = createBoundedServer((req, res) => {
    dropBodyAfterAnswer(req, res);
    if (seam(req, res)) return;
    if (!carriesBody(req)) return adminUi(req, res);
    void presentsSignedSession(req, config).then((signed) => {
      if (signed || unauthenticated.admit(req, res)) adminUi(req, res);
    });
  }, logger, connectionLimitsFor(openFilesLimit(), config.maxConnections));
  server.listen(config.port, config.host, () => {
    const address = server.address();
    const boundPort = typeof address === 'object' && address ? address.port : config.port;
    const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${boundPort}`;
    logger.info(`service listening on ${url}`, { url, baseUrl: config.baseUrl, mode: dev ? 'dev' : 'built', node: process.version });
    // Agents run in a supervised runtime process that calls back over its IPC channel.
    if (config.bridgeToken) {
      runtime = startAgentRuntime({ host: services.bridgeCalls, logger: logger.child({ component: 'runtime' }) });
      services.executor.useRuntime(runtime);
    } else {
      logger.warn('SERVICE_BRIDGE_TOKEN is unset: agents run inside the web process');
    }
    if (started.initialSignIn) {
      // Printed to the terminal once, at creation; it is not written to the log stream.
      process.stdout.write(
        `\n  Sign in at ${url}/sign-in\n  email:    ${started.initialSignIn.email}\n  password: ${started.initialSignIn.password}\n  (shown once; change it at ${url}/administration/account, or create your own admin with \`pnpm admin:create\`)\n\n`,
      );
    } else {
      process.stdout.write(`\n  Sign in at ${url}/sign-in\n\n`);
    }
  });

  const stopBackgroundWork = startBackgroundWork(services);
  let runtime: AgentRuntime | undefined;

  // A background job's bug must not take every other request down with it.
  process.on('unhandledRejection', (error) => logger.error('unhandled rejection', { error }));

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info(`received ${signal}, shutting down`);
    stopBackgroundWork();
    await runtime?.stop();
    server.close();
    await services.a2aGrpc.close();
    await vite?.close();
    await started.stop();
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((error: unknown) => {
  if (error instanceof Error && error.name === 'ConfigError') process.stderr.write(`${error.message}\n`);
  else logger.error('start-up failed', { error });
  process.exit(1);
});
