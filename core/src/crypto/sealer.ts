import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { DomainError, type ErrorCode } from '../errors/index.ts';

/**
 * Sealed value layout: `sealed.v1.<keyId>.<iv>.<ciphertext||tag>` (base64url parts).
 * The key id is derived from the key (HMAC, so it reveals nothing about it); the label and
 * key id are bound as additional authenticated data, so a value opens only under its label.
 */
const PREFIX = 'sealed';
const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export class SealedSecretError extends DomainError {
  override name = 'SealedSecretError';
  constructor(code: Extract<ErrorCode, `SEALED_SECRET_${string}`>, message: string) {
    super(code, message);
  }
}

export interface MasterKeys {
  current: Buffer;
  previous?: Buffer[];
}

export interface Sealer {
  seal(plaintext: string, label: string): string;
  open(sealed: string, label: string): string;
  /** Re-encrypts under the current key; a value already under it is re-sealed with a fresh IV. */
  reseal(sealed: string, label: string): string;
  /** True when the value was sealed under a key other than the current one. */
  needsReseal(sealed: string): boolean;
  currentKeyId: string;
}

export function keyIdOf(key: Buffer): string {
  return createHmac('sha256', key).update('service sealed-secret key id').digest('base64url').slice(0, 12);
}

export function createSealer(keys: MasterKeys): Sealer {
  for (const key of [keys.current, ...(keys.previous ?? [])]) {
    if (key.length !== 32) throw new SealedSecretError('SEALED_SECRET_MALFORMED', 'master keys must be 32 bytes');
  }
  const currentKeyId = keyIdOf(keys.current);
  const byId = new Map<string, Buffer>([[currentKeyId, keys.current]]);
  for (const key of keys.previous ?? []) byId.set(keyIdOf(key), key);

  const aad = (keyId: string, label: string) => Buffer.from(`${VERSION}\u0000${keyId}\u0000${label}`, 'utf8');

  const seal = (plaintext: string, label: string): string => {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', keys.current, iv);
    cipher.setAAD(aad(currentKeyId, label));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return [PREFIX, VERSION, currentKeyId, iv.toString('base64url'), body.toString('base64url')].join('.');
  };

  const open = (sealed: string, label: string): string => {
    const { keyId, iv, body } = parse(sealed);
    const key = byId.get(keyId);
    if (!key) throw new SealedSecretError('SEALED_SECRET_UNKNOWN_KEY', `sealed value uses unknown key id ${keyId}`);
    const decipher = createDecipheriv('aes-256-gcm', key, iv);
    decipher.setAAD(aad(keyId, label));
    decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
    try {
      return Buffer.concat([decipher.update(body.subarray(0, body.length - TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new SealedSecretError('SEALED_SECRET_INVALID', `sealed value does not open under label "${label}" (wrong label or tampered value)`);
    }
  };

  return {
    seal,
    open,
    reseal: (sealed, label) => seal(open(sealed, label), label),
    needsReseal: (sealed) => parse(sealed).keyId !== currentKeyId,
    currentKeyId,
  };
}

function parse(sealed: string): { keyId: string; iv: Buffer; body: Buffer } {
  const parts = sealed.split('.');
  const [prefix, version, keyId, iv, body] = parts;
  if (parts.length !== 5 || prefix !== PREFIX || version !== VERSION || !keyId || !iv || !body) {
    throw new SealedSecretError('SEALED_SECRET_MALFORMED', 'value is not a sealed secret');
  }
  const ivBytes = Buffer.from(iv, 'base64url');
  const bodyBytes = Buffer.from(body, 'base64url');
  if (ivBytes.length !== IV_BYTES || bodyBytes.length < TAG_BYTES) {
    throw new SealedSecretError('SEALED_SECRET_MALFORMED', 'sealed value has a malformed IV or body');
  }
  return { keyId, iv: ivBytes, body: bodyBytes };
}
