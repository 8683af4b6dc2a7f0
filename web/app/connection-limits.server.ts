import http from 'node:http';
import type { Logger } from '@service/core/log';

/**
 * How many connections the web process holds and how long a client may take to send a request.
 * docs/operations.md ("Connection limits") gives the reason for each value.
 */
export const CONNECTION_LIMITS = {
  /** Below the usual limit of 1,024 descriptors, leaving 256 for the database pool, children, outbound calls and files. */
  maxConnections: 768,
  /** From a request's first byte to the end of its head (Node's default: 60 s). */
  headersTimeout: 10_000,
  /** From a request's first byte to the end of its body: 8 MiB, the largest accepted, at 0.6 Mbit/s (Node's default: 300 s). */
  requestTimeout: 120_000,
  /** An idle keep-alive connection is closed after this (Node's default, stated). */
  keepAliveTimeout: 5_000,
  /** How often Node looks for requests past those timeouts (its default, 30 s, lets each run up to that much longer). */
  connectionsCheckingInterval: 1_000,
};

export type ConnectionLimits = typeof CONNECTION_LIMITS;

/** Refusals past maxConnections are logged at most this often, with how many there were. */
const DROP_LOG_INTERVAL_MS = 60_000;

/** An http.Server under those limits. Past maxConnections, Node closes each new connection at once. */
export function createBoundedServer(listener: http.RequestListener, logger: Logger, limits: ConnectionLimits = CONNECTION_LIMITS): http.Server {
  const { maxConnections, ...timeouts } = limits;
  const server = http.createServer(timeouts, listener);
  server.maxConnections = maxConnections;
  let refused = 0;
  let loggedAt = -Infinity;
  server.on('drop', () => {
    refused++;
    if (Date.now() - loggedAt < DROP_LOG_INTERVAL_MS) return;
    logger.warn(`connections refused: ${maxConnections} are open (maxConnections)`, { refused });
    loggedAt = Date.now();
    refused = 0;
  });
  return server;
}
