import { Schema, type InferSchemaType } from 'mongoose';

/**
 * The rows of the authorization code flow (docs/mcp.md, "Connect a hosted client"). Codes and
 * refresh tokens are stored by the SHA-256 of their value, so a database read cannot replay them.
 */

/** A client registered by RFC 7591 dynamic registration. Unused rows lapse after a day (`expiresAt`, TTL). */
export const oauthRegisteredClientSchema = new Schema(
  {
    _id: { type: String, required: true },
    name: { type: String, required: true },
    redirectUris: { type: [String], required: true },
    /** `none` (a public client, PKCE only), `client_secret_basic` or `client_secret_post`. */
    authMethod: { type: String, required: true },
    secretHash: { type: String, default: null },
    clientUri: { type: String, default: null },
    /** Cleared once an admin's consent is redeemed: from then on the client lives as long as its grants. */
    expiresAt: { type: Date, default: null },
  },
  { timestamps: true, collection: 'oauth_registered_clients', versionKey: false },
);
oauthRegisteredClientSchema.index({ expiresAt: 1 }, { name: 'expires', expireAfterSeconds: 0 });

/** What an admin approved: the same on the code that carries it and on the connection it becomes. */
const consentFields = {
  clientId: { type: String, required: true },
  clientName: { type: String, required: true },
  /** `metadata-document` (the client id is its metadata URL) or `registered` (RFC 7591). */
  clientKind: { type: String, required: true },
  redirectUri: { type: String, required: true },
  resource: { type: String, required: true },
  allowedPrimitives: { type: [String], default: [] },
  consentedBy: { type: String, required: true },
  consentedByEmail: { type: String, required: true },
};

/** A connection: what an admin consented to for one client, the tools it may call on one resource, until revoked. `_id` is a UUIDv7 (newest last). */
export const oauthGrantSchema = new Schema(
  {
    _id: { type: String, required: true },
    ...consentFields,
    lastRefreshedAt: { type: Date, default: null },
    revokedAt: { type: Date, default: null },
    revokedReason: { type: String, default: null },
  },
  { timestamps: true, collection: 'oauth_grants', versionKey: false },
);

/** A one-time authorization code (60 s) and the consent it carries until it is redeemed. */
export const oauthAuthorizationCodeSchema = new Schema(
  {
    _id: { type: String, required: true },
    ...consentFields,
    codeChallenge: { type: String, required: true },
    redirectUriSent: { type: Boolean, default: true },
    /** Set when the code is presented again after it was redeemed: the connection made from it is revoked. */
    replayedAt: { type: Date, default: null },
    /** The grant made when it was redeemed: a second redemption revokes it (RFC 6749 §4.1.2). */
    grantId: { type: String, default: null },
    expiresAt: { type: Date, required: true },
  },
  { collection: 'oauth_authorization_codes', versionKey: false },
);
oauthAuthorizationCodeSchema.index({ expiresAt: 1 }, { name: 'expires', expireAfterSeconds: 300 });

/** A refresh token; rotated on use, and a used one presented again revokes its grant. */
export const oauthRefreshTokenSchema = new Schema(
  {
    _id: { type: String, required: true },
    grantId: { type: String, required: true },
    clientId: { type: String, required: true },
    usedAt: { type: Date, default: null },
    expiresAt: { type: Date, required: true },
  },
  { collection: 'oauth_refresh_tokens', versionKey: false },
);
oauthRefreshTokenSchema.index({ expiresAt: 1 }, { name: 'expires', expireAfterSeconds: 0 });
oauthRefreshTokenSchema.index({ grantId: 1 }, { name: 'grant' });

export type OauthGrantRecord = InferSchemaType<typeof oauthGrantSchema>;
export type OauthRegisteredClientRecord = InferSchemaType<typeof oauthRegisteredClientSchema>;
