import { randomBytes } from 'node:crypto';

/** The last id's millisecond and 12-bit counter in this process (RFC 9562, 6.2, method 1). */
let last = { ms: 0, counter: 0 };

/**
 * A UUID version 7 (RFC 9562): 48 bits of Unix milliseconds, a 12-bit counter, then random bits.
 * Ids made later sort after earlier ones: across processes to the millisecond, within one process
 * always (the counter orders ids of one millisecond), so "newest first" is a range on `_id` and
 * every server serves it from the primary key. An explicit `now` (backdated ids) takes no counter.
 */
export function uuidv7(now?: number): string {
  const bytes = randomBytes(16);
  let ms = now ?? Date.now();
  let counter = bytes.readUInt16BE(6) & 0x07ff;
  if (now === undefined) {
    if (ms <= last.ms) {
      ms = last.ms;
      counter = last.counter + 1;
      // The counter ran out within one millisecond: borrow the next one.
      if (counter > 0x0fff) {
        ms += 1;
        counter = 0;
      }
    }
    last = { ms, counter };
  }
  bytes.writeUIntBE(ms, 0, 6);
  bytes.writeUInt16BE(0x7000 | counter, 6);
  bytes[8] = 0x80 | (bytes[8]! & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The smallest UUIDv7 of millisecond `ms`: every id made before `ms` sorts below it, every later one above. */
export function uuidv7Floor(ms: number): string {
  const hex = ms.toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-0000-0000-000000000000`;
}
