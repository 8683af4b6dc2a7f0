import { DomainError } from '../errors/index.ts';

export const ROUTING_MODE_MISSING = 'deployment config malformed — routingMode missing';

/** The deployment's registry configuration is absent or malformed. */
export class DeploymentRegistryConfigNotAvailableError extends DomainError {
  override name = 'DeploymentRegistryConfigNotAvailableError';
  constructor(message: string = ROUTING_MODE_MISSING) {
    super('REGISTRY_NOT_CONFIGURED', message);
  }
}

export const PUBLIC_RESOLVER_NOT_WIRED =
  'The public registry destination has no publish token (publicPublishToken is null), so nothing can be published or promoted to it. ' +
  'Wire a real resolver under Administration › Settings › Registries: set the public destination\'s publish token.';

/** Public-destination resolution for a publish when `publicPublishToken` is null. */
export class PublicRegistryResolverNotWiredError extends DomainError {
  override name = 'PublicRegistryResolverNotWiredError';
  constructor() {
    super('REGISTRY_NOT_CONFIGURED', PUBLIC_RESOLVER_NOT_WIRED);
  }
}

export class PrivateDestinationNotConfiguredError extends DomainError {
  override name = 'PrivateDestinationNotConfiguredError';
  constructor(reason: string) {
    super('REGISTRY_NOT_CONFIGURED', `The private registry destination is not configured: ${reason}. Configure it under Administration › Settings › Registries.`);
  }
}
