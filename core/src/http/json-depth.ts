import { DomainError, formatPath } from '../errors/index.ts';

/**
 * How many levels of objects and arrays caller JSON may nest where the service keeps it (A2A
 * params, AG-UI answers). Real messages stay far below; JSON.stringify, which stores them, runs
 * out of stack near 5 000 levels, and that was an internal error for what the caller sent.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * The path to the first object or array that sits deeper than `limit` levels (the value itself
 * being level 1), or null. Walks with its own stack, so the check cannot run out of one.
 */
export function pathDeeperThan(value: unknown, limit: number): PropertyKey[] | null {
  const pending: { value: unknown; depth: number; path: PropertyKey[] }[] = [{ value, depth: 1, path: [] }];
  for (let next = pending.pop(); next; next = pending.pop()) {
    if (next.value === null || typeof next.value !== 'object') continue;
    if (next.depth > limit) return next.path;
    const container = next.value as Record<PropertyKey, unknown>;
    for (const key of Array.isArray(container) ? container.keys() : Object.keys(container)) {
      const inner = container[key];
      if (inner !== null && typeof inner === 'object') pending.push({ value: inner, depth: next.depth + 1, path: [...next.path, key] });
    }
  }
  return null;
}

/** Throws VALIDATION_FAILED (-32602, 400) naming the limit when `value` nests deeper than MAX_JSON_DEPTH. */
export function assertJsonDepth(value: unknown, what: string): void {
  const path = pathDeeperThan(value, MAX_JSON_DEPTH);
  if (!path) return;
  const where = formatPath(path.slice(0, 8)) + (path.length > 8 ? '…' : '');
  const reason = `nested more than ${MAX_JSON_DEPTH} levels deep (objects and arrays); ${MAX_JSON_DEPTH} levels is the limit`;
  throw new DomainError('VALIDATION_FAILED', `${what}: ${where.slice(0, 200)}: ${reason}`, { details: [{ path: where.slice(0, 200), reason }] });
}
