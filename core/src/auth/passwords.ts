import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { DomainError } from '../errors/index.ts';
import { createSlots, type StartTimer } from './slots.ts';

/**
 * Every derivation holds ~64 MiB while it runs (and a libuv thread), so the whole process runs
 * at most SCRYPT_CONCURRENCY at once; a burst queues up to SCRYPT_MAX_WAITING more for at most
 * SCRYPT_MAX_WAIT_MS, and anything beyond is refused (RATE_LIMITED) rather than held in memory.
 */
export const SCRYPT_CONCURRENCY = 2;
export const SCRYPT_MAX_WAITING = 16;
export const SCRYPT_MAX_WAIT_MS = 10_000;

/** OWASP's scrypt floor (N=2^17, r=8, p=1) costs ~128 MiB per hash; this keeps 64 MiB. */
const PARAMS = { N: 2 ** 16, r: 8, p: 1 } as const;
const KEY_BYTES = 32;
const maxmem = 256 * 1024 * 1024;

export const MIN_PASSWORD_LENGTH = 12;

/**
 * The password policy, for every way a password is set (first admin, admin:create, the users
 * page, a change on the account page): at least MIN_PASSWORD_LENGTH characters, taken as typed.
 * `field` names the form field the refusal is shown next to.
 */
export function assertPasswordPolicy(password: string, field = 'password'): void {
  if (password.length >= MIN_PASSWORD_LENGTH) return;
  throw new DomainError('VALIDATION_FAILED', `Password must be at least ${MIN_PASSWORD_LENGTH} characters`, {
    details: [{ path: field, reason: `at least ${MIN_PASSWORD_LENGTH} characters` }],
  });
}

/** A password generated for someone to change later: 16 characters, 96 random bits. */
export const generatePassword = (): string => randomBytes(12).toString('base64url');

/**
 * Hashing and checking on their own scrypt slots. `startTimer` is the clock of the bounded wait;
 * the process uses real time, tests one they control (a slow machine must not change a verdict).
 */
export function createPasswordHashing(options: { startTimer?: StartTimer } = {}) {
  const slots = createSlots({
    concurrency: SCRYPT_CONCURRENCY,
    maxWaiting: SCRYPT_MAX_WAITING,
    maxWaitMs: SCRYPT_MAX_WAIT_MS,
    busyMessage: 'The server is busy checking other passwords. Try again in a moment.',
    startTimer: options.startTimer,
  });

  const scrypt = (password: string, salt: Buffer, keylen: number, params: ScryptOptions) =>
    slots.run(
      () =>
        new Promise<Buffer>((resolve, reject) =>
          scryptCallback(password, salt, keylen, params, (error, key) => (error ? reject(error) : resolve(key))),
        ),
    );

  /** `scrypt$N$r$p$salt$hash`, parameters stored with the hash so they can be raised later. */
  async function hashPassword(password: string): Promise<string> {
    const salt = randomBytes(16);
    const key = await scrypt(password, salt, KEY_BYTES, { ...PARAMS, maxmem });
    return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64url'), key.toString('base64url')].join('$');
  }

  async function verifyPassword(password: string, stored: string): Promise<boolean> {
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

  /** How many scrypt derivations run and wait on these slots right now. */
  const load = () => slots.load();

  return { hashPassword, verifyPassword, load };
}

/** The process's one set of slots: every hash and check in the process shares it. */
const processHashing = createPasswordHashing();
export const { hashPassword, verifyPassword } = processHashing;
/** How many scrypt derivations run and wait in this process right now. */
export const scryptLoad = processHashing.load;

/** A hash of a random password: verifying against it costs what a real check costs. */
let decoy: Promise<string> | undefined;
export function decoyHash(): Promise<string> {
  if (!decoy) {
    const made = hashPassword(randomBytes(16).toString('base64url'));
    // A refused derivation (no scrypt slot) must not stay cached: the next caller tries again.
    made.catch(() => {
      if (decoy === made) decoy = undefined;
    });
    decoy = made;
  }
  return decoy;
}
