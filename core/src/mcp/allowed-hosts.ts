import type { ServiceConfig } from '../config/index.ts';

const LOOPBACK = ['localhost', '127.0.0.1', '[::1]'];
const WILDCARD = ['0.0.0.0', '::'];

/**
 * The Host names an MCP endpoint answers (DNS-rebinding protection, port-agnostic as the SDK's own
 * middleware): the instance's base URL, the listen address, and loopback when it listens there.
 */
export function mcpAllowedHostnames(config: Pick<ServiceConfig, 'baseUrl' | 'host'>): string[] {
  const names = new Set([new URL(config.baseUrl).hostname]);
  const listen = config.host.includes(':') ? `[${config.host}]` : config.host;
  // A wildcard is no name a request carries; listening on it (or on loopback) answers loopback names.
  if (!WILDCARD.includes(config.host)) names.add(listen);
  if (WILDCARD.includes(config.host) || LOOPBACK.includes(listen)) for (const name of LOOPBACK) names.add(name);
  return [...names];
}

/** The hostname of a Host header, or null when it is missing or not a host. */
export function hostnameOf(hostHeader: string | null): string | null {
  if (!hostHeader) return null;
  const url = URL.canParse(`http://${hostHeader}`) ? new URL(`http://${hostHeader}`) : null;
  // A Host header names a host and a port, nothing else.
  return url && url.pathname === '/' && !url.username && !url.password && !url.search && !url.hash ? url.hostname : null;
}
