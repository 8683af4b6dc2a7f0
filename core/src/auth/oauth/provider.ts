import type { Sealer } from '../../crypto/index.ts';
import type { Models, WindowCounters } from '../../db/index.ts';
import { createSharedRateLimiter, type OutboundHttp } from '../../http/index.ts';
import type { Logger } from '../../log/index.ts';
import type { AuditTrail } from '../audit-trail.ts';
import { createAppClients } from './app-clients.ts';
import { createAuthorization } from './authorization.ts';
import { createOauthClients } from './clients.ts';
import { createConsents } from './consents.ts';
import { createProtectedResourceMetadataHandler } from './protected-resource.ts';
import { createSigningKeys } from './signing-keys.ts';
import { ACCESS_TOKEN_TTL_SECONDS, createAccessTokens } from './tokens.ts';
import { createAuthorizationServerMetadataHandler, createJwksHandler, createRegistrationEndpoint, createTokenEndpoint } from './token-endpoint.ts';
import { createAppClientAuthentication } from './app-client-authentication.ts';
import { createRevocationEndpoint } from './revocation-endpoint.ts';

export const JWKS_PATH = '/.well-known/jwks.json';
/** The MCP endpoint of the web app, as a resource (RFC 8707) of this authorization server. */
export const MCP_RESOURCE_PATH = '/api/mcp';

/**
 * The OAuth 2.0 provider: machine clients and their client credentials; the authorization code
 * flow for apps an admin consents to (metadata-document and registered clients, consents, codes,
 * refresh tokens); signing keys, the token endpoint and the verifier.
 */
export function createOauthProvider(deps: {
  models: Models;
  counters: WindowCounters;
  sealer: Sealer;
  audit: AuditTrail;
  logger: Logger;
  canonicalOrigin: () => string;
  /** Metadata documents are fetched through the outbound policy. */
  http: OutboundHttp;
  /** Further MCP resources tokens may be bound to (the standalone server's public URL). */
  extraMcpResources?: () => string[];
  productName: string;
}) {
  const mcpResource = () => `${deps.canonicalOrigin()}${MCP_RESOURCE_PATH}`;
  const resources = () => [mcpResource(), ...(deps.extraMcpResources?.() ?? [])];
  const clients = createOauthClients(deps);
  const appClients = createAppClients({ models: deps.models, http: deps.http });
  const consents = createConsents({ models: deps.models, audit: deps.audit, keepClient: appClients.keep });
  const keys = createSigningKeys({ models: deps.models, sealer: deps.sealer, retiredGraceMs: 2 * ACCESS_TOKEN_TTL_SECONDS * 1000 });
  const tokens = createAccessTokens({ keys, clients, consents, canonicalOrigin: deps.canonicalOrigin });
  const authorization = createAuthorization({ appClients, consents, issuer: deps.canonicalOrigin, resources });
  // One count of failed client authentications for the token and revocation endpoints.
  const authentication = createAppClientAuthentication({ appClients, failureLimiter: createSharedRateLimiter(deps.counters, { name: 'oauth-token-failures', limit: 30, windowMs: 60_000 }), logger: deps.logger });
  return {
    clients,
    appClients,
    consents,
    authorization,
    keys,
    tokens,
    mcpResource,
    handlers: {
      token: createTokenEndpoint({
        clients,
        authentication,
        consents,
        tokens,
        rateLimiter: createSharedRateLimiter(deps.counters, { name: 'oauth-token', limit: 30, windowMs: 60_000 }),
        logger: deps.logger,
      }),
      revoke: createRevocationEndpoint({ authentication, consents, tokens, audiences: resources }),
      register: createRegistrationEndpoint({ appClients, rateLimiter: createSharedRateLimiter(deps.counters, { name: 'oauth-register', limit: 60, windowMs: 60 * 60_000 }) }),
      jwks: createJwksHandler({ keys }),
      metadata: createAuthorizationServerMetadataHandler({ canonicalOrigin: deps.canonicalOrigin, jwksPath: JWKS_PATH }),
      mcpResourceMetadata: createProtectedResourceMetadataHandler({ resource: mcpResource, authorizationServer: deps.canonicalOrigin, name: `${deps.productName} MCP` }),
    },
  };
}

export type OauthProvider = ReturnType<typeof createOauthProvider>;
