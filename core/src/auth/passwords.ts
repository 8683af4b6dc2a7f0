import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const scrypt = (password: string, salt: Buffer, keylen: number, options: ScryptOptions) =>
  new Promise<Buffer>((resolve, reject) =>
    scryptCallback(password, salt, keylen, options, (error, key) => (error ? reject(error) : resolve(key))),
  );

/** OWASP's scrypt floor (N=2^17, r=8, p=1) costs ~128 MiB per hash; this keeps 64 MiB. */
const PARAMS = { N: 2 ** 16, r: 8, p: 1 } as const;
const KEY_BYTES = 32;
const maxmem = 256 * 1024 * 1024;

export const MIN_PASSWORD_LENGTH = 12;

/** `scrypt$N$r$p$salt$hash`, parameters stored with the hash so they can be raised later. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, KEY_BYTES, { ...PARAMS, maxmem });
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !n || !r || !p || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const key = await scrypt(password, Buffer.from(salt, 'base64url'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem,
  });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** A hash of a random password: verifying against it costs what a real check costs. */
let decoy: Promise<string> | undefined;
export function decoyHash(): Promise<string> {
  decoy ??= hashPassword(randomBytes(16).toString('base64url'));
  return decoy;
}
