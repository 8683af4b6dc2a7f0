import type { RoutingMode } from './config-types.ts';

/**
 * The registry flags for an npm command. scope-based routes the package's scope to the
 * destination (`--@scope:registry=URL`), so each scope can live on its own registry host;
 * shared-acl points the whole command at one registry (`--registry=URL`) that isolates
 * instances by ACL. Never a token: that goes in the temporary npmrc.
 */
export function topologyFlags(routingMode: RoutingMode, target: { scope: string; registryUrl: string }): string[] {
  const url = withTrailingSlash(target.registryUrl);
  switch (routingMode) {
    case 'scope-based':
      return [`--${target.scope}:registry=${url}`];
    case 'shared-acl':
      return [`--registry=${url}`];
  }
}

export function withTrailingSlash(url: string): string {
  return url.endsWith('/') ? url : `${url}/`;
}
