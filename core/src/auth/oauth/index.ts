export { createOauthClients, type OauthClients, type OauthClientView, type ClientGrants } from './clients.ts';
export { createSigningKeys, SIGNING_ALG, type SigningKeys } from './signing-keys.ts';
export { createAccessTokens, ACCESS_TOKEN_TTL_SECONDS, type AccessTokens, type AuthenticatedClient } from './tokens.ts';
export { createTokenEndpoint, createJwksHandler, TOKEN_ENDPOINT_PATH, REGISTRATION_ENDPOINT_PATH, oauthPreflight } from './token-endpoint.ts';
export { createOauthProvider, type OauthProvider, JWKS_PATH, MCP_RESOURCE_PATH } from './provider.ts';
export { AUTHORIZATION_ENDPOINT_PATH, redirectUriMatches, type AuthorizationCheck, type AuthorizationRequest } from './authorization.ts';
export { bearerChallenge, createProtectedResourceMetadataHandler, resourceMetadataUrl, MCP_SCOPE, PROTECTED_RESOURCE_METADATA_PATH } from './protected-resource.ts';
export { isLoopbackHost, isMetadataDocumentUrl, redirectUriProblem, type AppClient } from './app-clients.ts';
export { type GrantView } from './consents.ts';
