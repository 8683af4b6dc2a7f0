import { describe, expect, it } from 'vitest';
import { uuidv7 } from './index.ts';

describe('uuidv7', () => {
  it('is an RFC 9562 version 7 UUID carrying the time', () => {
    const at = Date.UTC(2026, 10, 24, 12, 0, 0);
    const id = uuidv7(at);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(parseInt(id.replace(/-/g, '').slice(0, 12), 16)).toBe(at);
  });

  it('sorts later ids after earlier ones as plain strings', () => {
    const ids = [1, 2, 1000, 86_400_000].map((offset) => uuidv7(1_700_000_000_000 + offset));
    expect([...ids].sort()).toEqual(ids);
  });

  it('orders ids made in one process within the same millisecond (a counter after the time)', () => {
    const ids = Array.from({ length: 10_000 }, () => uuidv7());
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.every((id) => /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(id))).toBe(true);
  });
});
