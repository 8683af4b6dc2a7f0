import type { Logger } from '../log/index.ts';
import { DomainError } from './domain-error.ts';
import { storageFullReason } from './storage-full.ts';

const alreadyLogged = new WeakSet<object>();

/** The MongoDB driver's errors for a server it cannot reach (by name: core/errors depends on no driver). */
const UNREACHABLE = new Set(['MongoServerSelectionError', 'MongoNetworkError', 'MongoNetworkTimeoutError', 'MongoNotConnectedError', 'MongoPoolClearedError', 'MongoTopologyClosedError']);

/** Socket errors of a server that went away mid-command. */
const SOCKET_LOST = new Set(['EPIPE', 'ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT']);
/** The driver's own files, in a stack: `…/mongodb/lib/…`. */
const DRIVER_FRAME = /[\\/]mongodb[\\/]lib[\\/]/;

/** Whether `error` says the database cannot be reached right now (an outage, not a bug). */
export function isDatabaseUnreachable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { name, code, stack } = error as { name?: string; code?: unknown; stack?: string };
  if (UNREACHABLE.has(name ?? '')) return true;
  // Driver 6.x lets a write to a socket the server has just closed surface as the socket's own error
  // (EPIPE "This socket has been ended by the other party"), unwrapped: recognised by where it was thrown.
  return typeof code === 'string' && SOCKET_LOST.has(code) && DRIVER_FRAME.test(stack ?? '');
}

/**
 * Normalises anything thrown into a DomainError. A database that cannot be reached is
 * DEPENDENCY_UNAVAILABLE (503: try again), not logged here (an outage, not a bug). A write the
 * database refused for lack of disk space becomes STORAGE_FULL, which says so; other unknown
 * errors become INTERNAL. Either keeps the original as `cause` and is logged exactly once,
 * however many layers rethrow it.
 */
export function toDomainError(error: unknown, logger?: Logger): DomainError {
  if (error instanceof DomainError) return error;
  if (isDatabaseUnreachable(error)) return new DomainError('DEPENDENCY_UNAVAILABLE', 'The database is unavailable; try again shortly', { cause: error });
  const storage = storageFullReason(error);
  const wrapped = storage
    ? new DomainError('STORAGE_FULL', 'No space left to store this: the database is out of disk space, and nothing was stored. Try again once space is freed.', { cause: error })
    : new DomainError('INTERNAL', 'Internal error', { cause: error });
  if (logger && !(typeof error === 'object' && error !== null && alreadyLogged.has(error))) {
    if (typeof error === 'object' && error !== null) alreadyLogged.add(error);
    logger.error(storage ? `database write refused: ${storage}` : 'unhandled error', { error });
  }
  return wrapped;
}
