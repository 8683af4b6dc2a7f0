import { randomBytes } from 'node:crypto';
import { exportJWK, generateKeyPair, importJWK, type JWK, type CryptoKey } from 'jose';
import type { Sealer } from '../../crypto/index.ts';
import { isDuplicateKeyError, type Models } from '../../db/index.ts';

export const SIGNING_ALG = 'ES256';
const label = (kid: string) => `oauth.signing-key.${kid}`;

export interface SigningKeys {
  /** The newest active key, created on first use. */
  current(): Promise<{ kid: string; privateKey: CryptoKey }>;
  /** Public keys of active keys and keys retired less than `retiredGraceMs` ago. */
  jwks(): Promise<{ keys: JWK[] }>;
  /** Starts signing with a fresh key; the old one stays published for the grace period. */
  rotate(): Promise<string>;
}

/** Asymmetric JWT signing keys; the private half is sealed at rest and cached in memory. */
export function createSigningKeys(deps: { models: Models; sealer: Sealer; retiredGraceMs: number }): SigningKeys {
  const { OauthSigningKey } = deps.models;
  let cached: { kid: string; privateKey: CryptoKey } | undefined;

  async function create(): Promise<string> {
    const kid = randomBytes(9).toString('base64url');
    const { publicKey, privateKey } = await generateKeyPair(SIGNING_ALG, { extractable: true });
    const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: SIGNING_ALG, use: 'sig' };
    const privateJwk = await exportJWK(privateKey);
    await OauthSigningKey.create({ _id: kid, alg: SIGNING_ALG, publicJwk, privateJwkSealed: deps.sealer.seal(JSON.stringify(privateJwk), label(kid)) });
    return kid;
  }

  async function load(): Promise<{ kid: string; privateKey: CryptoKey }> {
    let row = await OauthSigningKey.findOne({ retiredAt: null }).sort({ createdAt: -1 }).lean();
    if (!row) {
      try {
        await create();
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw error;
      }
      row = await OauthSigningKey.findOne({ retiredAt: null }).sort({ createdAt: -1 }).lean();
    }
    const jwk = JSON.parse(deps.sealer.open(row!.privateJwkSealed, label(row!._id))) as JWK;
    return { kid: row!._id, privateKey: (await importJWK(jwk, SIGNING_ALG)) as CryptoKey };
  }

  return {
    async current() {
      cached ??= await load();
      return cached;
    },
    async jwks() {
      const since = new Date(Date.now() - deps.retiredGraceMs);
      const rows = await OauthSigningKey.find({ $or: [{ retiredAt: null }, { retiredAt: { $gt: since } }] }).lean();
      return { keys: rows.map((row) => row.publicJwk as JWK) };
    },
    async rotate() {
      const kid = await create();
      await OauthSigningKey.updateMany({ _id: { $ne: kid }, retiredAt: null }, { $set: { retiredAt: new Date() } });
      cached = undefined;
      return kid;
    },
  };
}
