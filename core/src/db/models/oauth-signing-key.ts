import { Schema, type InferSchemaType } from 'mongoose';

/** A JWT signing key pair; the private JWK is sealed under `oauth.signing-key.<kid>`. */
export const oauthSigningKeySchema = new Schema(
  {
    _id: { type: String, required: true },
    alg: { type: String, required: true },
    publicJwk: { type: Schema.Types.Mixed, required: true },
    privateJwkSealed: { type: String, required: true },
    /** Signing uses the newest active key; retired keys stay in the JWKS until their tokens expire. */
    retiredAt: { type: Date, default: null },
  },
  { timestamps: true, collection: 'oauth_signing_keys' },
);

export type OauthSigningKeyRecord = InferSchemaType<typeof oauthSigningKeySchema>;
