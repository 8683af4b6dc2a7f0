import { readFileSync } from 'node:fs';
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

/** Descriptors kept for what else the process holds, at most (a quarter of a smaller limit). */
const RESERVED_DESCRIPTORS = 256;

/**
 * The limits under `descriptorLimit` open files: maxConnections leaves room for the database pool,
 * children and outbound calls, so the process is never out of descriptors (where the kernel's
 * queue would be accepted and reset wholesale, and the database could not be reached either).
 * At the usual 1 024 or above, the table's 768, or `wanted` (SERVICE_MAX_CONNECTIONS) where the limit allows it.
 */
export function connectionLimitsFor(descriptorLimit: number | undefined, wanted = CONNECTION_LIMITS.maxConnections): ConnectionLimits {
  if (descriptorLimit === undefined || !Number.isFinite(descriptorLimit)) return { ...CONNECTION_LIMITS, maxConnections: wanted };
  const reserved = Math.min(RESERVED_DESCRIPTORS, Math.floor(descriptorLimit / 4));
  return { ...CONNECTION_LIMITS, maxConnections: Math.max(1, Math.min(wanted, descriptorLimit - reserved)) };
}

/** This process's soft limit of open files (`ulimit -n`), where the system tells it (Linux); undefined elsewhere or when unlimited. */
export function openFilesLimit(limitsFile = '/proc/self/limits'): number | undefined {
  try {
    const line = readFileSync(limitsFile, 'utf8').split('\n').find((entry) => entry.startsWith('Max open files'));
    const soft = line?.slice('Max open files'.length).trim().split(/\s+/)[0];
    return soft && /^\d+$/.test(soft) ? Number(soft) : undefined;
  } catch {
    return undefined;
  }
}

/** Refusals past maxConnections are logged at most this often, with how many there were. */
const DROP_LOG_INTERVAL_MS = 60_000;

/** An http.Server under those limits. Past maxConnections, Node closes each new connection at once. */
export function createBoundedServer(listener: http.RequestListener, logger: Logger, limits: ConnectionLimits = connectionLimitsFor(openFilesLimit())): http.Server {
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
