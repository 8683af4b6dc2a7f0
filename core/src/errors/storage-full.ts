/** mongod's OutOfDiskSpace; other servers are known by their words (WiredTiger, PostgreSQL, SQLite under FerretDB). */
const OUT_OF_SPACE_CODE = 14031;
const OUT_OF_SPACE_WORDS = /no space left on device|database or disk is full|out of disk space|ENOSPC/i;

/**
 * Why a database write failed for lack of storage (a short phrase: never the server's whole
 * message, which may name its files), or null for any other failure. Looks through causes and
 * a bulk write's per-document errors.
 */
export function storageFullReason(error: unknown): string | null {
  const pending: unknown[] = [error];
  const seen = new Set<unknown>();
  while (pending.length) {
    const next = pending.pop();
    if (!next || typeof next !== 'object' || seen.has(next)) continue;
    seen.add(next);
    const failure = next as { code?: unknown; codeName?: unknown; errmsg?: unknown; message?: unknown; cause?: unknown; writeErrors?: unknown };
    if (failure.code === OUT_OF_SPACE_CODE || failure.codeName === 'OutOfDiskSpace') return 'out of disk space (OutOfDiskSpace)';
    if (failure.code === 'ENOSPC') return 'out of disk space (ENOSPC)';
    const words = OUT_OF_SPACE_WORDS.exec(`${String(failure.errmsg ?? '')} ${String(failure.message ?? '')}`);
    if (words) return `out of disk space (${words[0]})`;
    pending.push(failure.cause, ...(Array.isArray(failure.writeErrors) ? failure.writeErrors : []));
  }
  return null;
}
