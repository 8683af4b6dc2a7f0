/**
 * A read by key reused for `ttlMs` (at most `maxEntries` kept; a failed read is not kept), so the
 * state checked on every verified call costs one database read per key and second. `forget` drops
 * a key at once (a change made in this process applies here immediately).
 */
export function recentReads<T>(ttlMs: number, read: (key: string) => Promise<T>, maxEntries = 1_000) {
  const recent = new Map<string, { at: number; value: Promise<T> }>();
  return {
    get(key: string): Promise<T> {
      const now = Date.now();
      const hit = recent.get(key);
      if (hit && now - hit.at < ttlMs) return hit.value;
      const value = read(key);
      if (recent.size >= maxEntries) recent.clear();
      recent.set(key, { at: now, value });
      value.catch(() => recent.delete(key));
      return value;
    },
    forget(key: string): void {
      recent.delete(key);
    },
  };
}
