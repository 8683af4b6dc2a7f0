export type RoutingMode = 'scope-based' | 'shared-acl';
export const ROUTING_MODES: readonly RoutingMode[] = ['scope-based', 'shared-acl'];

/** Exactly the spec's DeploymentRegistryConfig. */
export interface DeploymentRegistryConfig {
  publicRegistryUrl: string;
  publicReadToken: string;
  publicPublishToken: string | null;
  privateRegistryUrl: string | null;
  privateReadToken: string | null;
  privatePublishToken: string | null;
  privateDestinationConfigured: boolean;
  privateDestinationId: string | null;
  routingMode: RoutingMode;
}
