import type { ServiceConfig } from '../config/index.ts';

const LOOPBACK = ['localhost', '127.0.0.1', '[::1]'];
const isLoopbackOrWildcard = (host: string) => LOOPBACK.includes(host) || host === '::1' || host === '0.0.0.0' || host === '::';

/**
 * The Host names an MCP endpoint answers (DNS-rebinding protection, port-agnostic as the SDK's own
 * middleware): the instance's base URL, the listen address, and loopback when it listens there.
 */
export function mcpAllowedHostnames(config: Pick<ServiceConfig, 'baseUrl' | 'host'>): string[] {
  const names = new Set([new URL(config.baseUrl).hostname]);
  if (config.host.includes(':')) names.add(`[${config.host}]`);
  else names.add(config.host);
  if (isLoopbackOrWildcard(config.host)) for (const name of LOOPBACK) names.add(name);
  for (const wildcard of ['0.0.0.0', '[::]']) names.delete(wildcard);
  return [...names];
}

/** The hostname of a Host header, or null when it is missing or not a host. */
export function hostnameOf(hostHeader: string | null): string | null {
  if (!hostHeader) return null;
  const url = URL.canParse(`http://${hostHeader}`) ? new URL(`http://${hostHeader}`) : null;
  // A Host header names a host and a port, nothing else.
  return url && url.pathname === '/' && !url.username && !url.password && !url.search && !url.hash ? url.hostname : null;
}
