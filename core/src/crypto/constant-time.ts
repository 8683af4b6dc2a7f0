import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Compares two secrets in time independent of where they differ. Both sides are hashed first
 * so unequal lengths take the same path and the length is not revealed either.
 */
export function constantTimeEqual(a: string | Buffer, b: string | Buffer): boolean {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb);
}
