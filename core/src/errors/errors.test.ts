import { describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../log/index.ts';
import { DomainError, ERROR_TABLE, toDomainError } from './index.ts';

describe('DomainError', () => {
  it('maps every code to an HTTP status, a JSON-RPC code and a tRPC code', () => {
    for (const [code, row] of Object.entries(ERROR_TABLE)) {
      const error = new DomainError(code as keyof typeof ERROR_TABLE, 'x');
      expect(error.httpStatus).toBe(row.http);
      expect(error.jsonRpcCode).toBe(row.jsonRpc);
      expect(error.trpcCode).toBe(row.trpc);
    }
    expect(new DomainError('NOT_FOUND', 'x').httpStatus).toBe(404);
  });

  it('wraps anything else as INTERNAL, keeps the cause and logs it once', () => {
    const logger = createMemoryLogger();
    const cause = new TypeError('boom');
    const first = toDomainError(cause, logger);
    const second = toDomainError(cause, logger);
    expect(first.code).toBe('INTERNAL');
    expect(first.cause).toBe(cause);
    expect(second.cause).toBe(cause);
    expect(logger.records).toHaveLength(1);
    expect(first.toPublicJSON()).toEqual({ code: 'INTERNAL', message: 'Internal error' });
  });

  it('passes domain errors through untouched', () => {
    const error = new DomainError('CONFLICT', 'taken', { details: { field: 'email' } });
    expect(toDomainError(error)).toBe(error);
    expect(error.toPublicJSON()).toEqual({ code: 'CONFLICT', message: 'taken', details: { field: 'email' } });
  });
});
