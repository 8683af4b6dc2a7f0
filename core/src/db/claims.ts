import { randomUUID } from 'node:crypto';
import { isDuplicateKeyError } from './errors.ts';
import type { Models } from './models/index.ts';

export interface Claims {
  /** This process's identity in claims and leases. */
  readonly owner: string;
  /** True for exactly one caller per key, across every process sharing the database. */
  once(key: string): Promise<boolean>;
  /**
   * `once`, except that a key whose winner has held it for `lapseMs` (it died before its work
   * was recorded) is won once more, by one caller; and so on, if that winner died too.
   */
  onceOrLapsed(key: string, lapseMs: number): Promise<boolean>;
  /** Drops claims older than `ageMs` (FerretDB has no TTL indexes). */
  forgetOlderThan(ageMs: number): Promise<number>;
}

/** How many lapsed winners of one key in a row `onceOrLapsed` steps past. */
const MAX_LAPSES = 8;

/** `now`: the clock a lapse is judged by (tests move it). */
export function createClaims(models: Models, owner = `${process.pid}:${randomUUID()}`, now: () => number = Date.now): Claims {
  const { Claim } = models;
  async function once(key: string): Promise<boolean> {
    try {
      await Claim.create({ _id: key, owner, at: new Date(now()) });
      return true;
    } catch (error) {
      if (isDuplicateKeyError(error)) return false;
      throw error;
    }
  }
  return {
    owner,
    once,
    async onceOrLapsed(key, lapseMs) {
      // Each lapsed winner is succeeded under a key naming it; a few in a row is already unusual.
      let next = key;
      for (let depth = 0; depth < MAX_LAPSES; depth++) {
        if (await once(next)) return true;
        const row = await Claim.findById(next).lean();
        if (!row || now() - row.at.getTime() < lapseMs) return false;
        next = `${key}:after:${row.at.getTime()}`;
      }
      return false;
    },
    async forgetOlderThan(ageMs) {
      const result = await Claim.deleteMany({ at: { $lt: new Date(now() - ageMs) } });
      return result.deletedCount;
    },
  };
}
