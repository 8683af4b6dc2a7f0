import type { Logger } from '../log/index.ts';
import { DomainError } from './domain-error.ts';

const alreadyLogged = new WeakSet<object>();

/**
 * Normalises anything thrown into a DomainError. Unknown errors become INTERNAL with the
 * original kept as `cause` and are logged exactly once, however many layers rethrow them.
 */
export function toDomainError(error: unknown, logger?: Logger): DomainError {
  if (error instanceof DomainError) return error;
  const wrapped = new DomainError('INTERNAL', 'Internal error', { cause: error });
  if (logger && !(typeof error === 'object' && error !== null && alreadyLogged.has(error))) {
    if (typeof error === 'object' && error !== null) alreadyLogged.add(error);
    logger.error('unhandled error', { error });
  }
  return wrapped;
}
