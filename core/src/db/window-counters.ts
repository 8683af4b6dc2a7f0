import { createHash, randomUUID } from 'node:crypto';
import { insertAbsorbingDuplicates, isDuplicateKeyError } from './errors.ts';
import type { Models } from './models/index.ts';

/**
 * Fixed-window counters shared by every process on the database: rate limits that hold however
 * many web processes serve (ADR 0030). A key's window opens with its first request and lasts
 * `windowMs`; the next request after it closes opens the key's next window (its generation + 1).
 *
 * Only inserts decide anything, as with claims (ADR 0008): FerretDB 1.24 writes an updated
 * document back whole, so two concurrent `$inc`s on one counter can lose one. A counted request
 * inserts a row under the next slot number of its window; two that read the same count race
 * for one `_id`, the loser reads again. A request taken back inserts a release row for its slot.
 */
export interface CounterWindow {
  readonly id: string;
  /** When the window opened, in ms since the epoch. */
  readonly start: number;
  /** When the window closes, in ms since the epoch. */
  readonly endsAt: number;
}

export interface WindowCounters {
  /** The open window of `key` among its `windowMs`-long ones, or the one its next request opens. */
  window(key: string, windowMs: number): Promise<CounterWindow>;
  /** Slots counted in the window less those taken back. */
  held(window: CounterWindow): Promise<number>;
  /**
   * Counts a request: its slot, or null when `limit` are held already. Without a limit the slot
   * is named at random (no retries under a burst) and `heldBefore` is the count it joined.
   */
  take(window: CounterWindow, limit?: number): Promise<{ slot: string; heldBefore: number } | null>;
  /** Takes counted requests back, once each (releasing a slot twice counts once). */
  release(window: CounterWindow, slots: string[]): Promise<void>;
  /** True once per window and count: the first refusal at a count is worth an audit row. */
  firstRefusal(window: CounterWindow, held: number): Promise<boolean>;
  /** Deletes rows of closed windows where the server has no TTL index (FerretDB 1.x). */
  forgetExpired(): Promise<number>;
}

/** Slot numbers sort as text in their `_id`. */
export const slotNumber = (n: number) => String(n).padStart(9, '0');

const GENERATION_DIGITS = 9;

/** Dense slots give up after this many lost races in a row and treat the window as full. */
const MAX_RACES = 50;

export function createWindowCounters(models: Models, options: { now?: () => number } = {}): WindowCounters {
  const { RateLimitSlot } = models;
  const now = options.now ?? Date.now;
  const range = (window: CounterWindow, kind: 's' | 'r') => ({ $gt: `${window.id}/${kind}/`, $lt: `${window.id}/${kind}0` });
  const insert = async (window: CounterWindow, id: string): Promise<boolean> => {
    try {
      await RateLimitSlot.collection.insertOne({ _id: id as never, start: new Date(window.start), expiresAt: new Date(window.endsAt) });
      return true;
    } catch (error) {
      if (isDuplicateKeyError(error)) return false;
      throw error;
    }
  };
  const counts = async (window: CounterWindow) => {
    const [slots, releases] = await Promise.all([
      RateLimitSlot.collection.countDocuments({ _id: range(window, 's') as never }),
      RateLimitSlot.collection.countDocuments({ _id: range(window, 'r') as never }),
    ]);
    return { slots, held: slots - releases };
  };

  return {
    async window(key, windowMs) {
      // Hashed: keys are whatever was typed (an email, an address), the `_id` stays short and plain.
      const family = `${createHash('sha256').update(key).digest('base64url').slice(0, 32)}:${windowMs}#`;
      const at = now();
      // The newest row of the key names its newest window: generations sort as text.
      const newest = await RateLimitSlot.collection.find({ _id: { $gt: family, $lt: `${family}~` } as never }).sort({ _id: -1 }).limit(1).next();
      const generation = newest ? Number(String(newest._id).slice(family.length, family.length + GENERATION_DIGITS)) : 0;
      const start = newest ? (newest.start as Date).getTime() : 0;
      if (newest && start + windowMs > at) return { id: `${family}${slotNumber(generation)}`, start, endsAt: start + windowMs };
      return { id: `${family}${slotNumber(generation + 1)}`, start: at, endsAt: at + windowMs };
    },
    async held(window) {
      return (await counts(window)).held;
    },
    async take(window, limit) {
      if (limit === undefined) {
        const heldBefore = (await counts(window)).held;
        const slot = `~${randomUUID()}`;
        await insert(window, `${window.id}/s/${slot}`);
        return { slot, heldBefore };
      }
      for (let race = 0; race < MAX_RACES; race++) {
        const { slots, held } = await counts(window);
        if (held >= limit) return null;
        const slot = slotNumber(slots + 1);
        if (await insert(window, `${window.id}/s/${slot}`)) return { slot, heldBefore: held };
      }
      return null;
    },
    async release(window, slots) {
      if (!slots.length) return;
      const rows = slots.map((slot) => ({ _id: `${window.id}/r/${slot}` as never, start: new Date(window.start), expiresAt: new Date(window.endsAt) }));
      // Slots released before (an undecided attempt, a second success) stay released once.
      await insertAbsorbingDuplicates(RateLimitSlot.collection, rows);
    },
    firstRefusal(window, held) {
      return insert(window, `${window.id}/refused/${held}`);
    },
    async forgetExpired() {
      return (await RateLimitSlot.collection.deleteMany({ expiresAt: { $lte: new Date(now()) } })).deletedCount;
    },
  };
}
