export { createOauthClients, type OauthClients, type OauthClientView, type ClientGrants } from './clients.ts';
export { createSigningKeys, SIGNING_ALG, type SigningKeys } from './signing-keys.ts';
export { createAccessTokens, ACCESS_TOKEN_TTL_SECONDS, type AccessTokens, type AuthenticatedClient } from './tokens.ts';
export { createTokenEndpoint, createJwksHandler, TOKEN_ENDPOINT_PATH } from './token-endpoint.ts';
export { createOauthProvider, type OauthProvider, JWKS_PATH } from './provider.ts';
