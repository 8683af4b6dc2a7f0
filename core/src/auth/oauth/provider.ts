import type { Sealer } from '../../crypto/index.ts';
import type { Models, WindowCounters } from '../../db/index.ts';
import { createSharedRateLimiter } from '../../http/index.ts';
import type { Logger } from '../../log/index.ts';
import type { AuditTrail } from '../audit-trail.ts';
import { createOauthClients } from './clients.ts';
import { createSigningKeys } from './signing-keys.ts';
import { ACCESS_TOKEN_TTL_SECONDS, createAccessTokens } from './tokens.ts';
import { createAuthorizationServerMetadataHandler, createJwksHandler, createTokenEndpoint } from './token-endpoint.ts';

export const JWKS_PATH = '/.well-known/jwks.json';

/** The OAuth 2.0 provider: clients, signing keys, the token endpoint and the verifier. */
export function createOauthProvider(deps: { models: Models; counters: WindowCounters; sealer: Sealer; audit: AuditTrail; logger: Logger; canonicalOrigin: () => string }) {
  const clients = createOauthClients(deps);
  const keys = createSigningKeys({ models: deps.models, sealer: deps.sealer, retiredGraceMs: 2 * ACCESS_TOKEN_TTL_SECONDS * 1000 });
  const tokens = createAccessTokens({ keys, clients, canonicalOrigin: deps.canonicalOrigin });
  return {
    clients,
    keys,
    tokens,
    handlers: {
      token: createTokenEndpoint({ clients, tokens, rateLimiter: createSharedRateLimiter(deps.counters, { name: 'oauth-token', limit: 30, windowMs: 60_000 }), logger: deps.logger }),
      jwks: createJwksHandler({ keys }),
      metadata: createAuthorizationServerMetadataHandler({ canonicalOrigin: deps.canonicalOrigin, jwksPath: JWKS_PATH }),
    },
  };
}

export type OauthProvider = ReturnType<typeof createOauthProvider>;
