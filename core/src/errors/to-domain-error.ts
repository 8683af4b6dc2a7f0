import type { Logger } from '../log/index.ts';
import { DomainError } from './domain-error.ts';

const alreadyLogged = new WeakSet<object>();

/** The MongoDB driver's errors for a server it cannot reach (by name: core/errors depends on no driver). */
const UNREACHABLE = new Set(['MongoServerSelectionError', 'MongoNetworkError', 'MongoNetworkTimeoutError', 'MongoNotConnectedError', 'MongoPoolClearedError', 'MongoTopologyClosedError']);

/** Whether `error` says the database cannot be reached right now (an outage, not a bug). */
export function isDatabaseUnreachable(error: unknown): boolean {
  return typeof error === 'object' && error !== null && UNREACHABLE.has((error as { name?: string }).name ?? '');
}

/**
 * Normalises anything thrown into a DomainError. A database that cannot be reached is
 * DEPENDENCY_UNAVAILABLE (503: try again). Other unknown errors become INTERNAL with the original
 * kept as `cause` and are logged exactly once, however many layers rethrow them.
 */
export function toDomainError(error: unknown, logger?: Logger): DomainError {
  if (error instanceof DomainError) return error;
  if (isDatabaseUnreachable(error)) return new DomainError('DEPENDENCY_UNAVAILABLE', 'The database is unavailable; try again shortly', { cause: error });
  const wrapped = new DomainError('INTERNAL', 'Internal error', { cause: error });
  if (logger && !(typeof error === 'object' && error !== null && alreadyLogged.has(error))) {
    if (typeof error === 'object' && error !== null) alreadyLogged.add(error);
    logger.error('unhandled error', { error });
  }
  return wrapped;
}
