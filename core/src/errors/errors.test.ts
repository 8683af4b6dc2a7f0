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

  it('makes an unreachable database DEPENDENCY_UNAVAILABLE (503), not logged, and leaves other socket errors INTERNAL', () => {
    const logger = createMemoryLogger();
    const named = Object.assign(new Error('connect ECONNREFUSED'), { name: 'MongoServerSelectionError' });
    // As driver 6.20 throws it: the socket's own error, from inside the driver.
    const raw = Object.assign(new Error('This socket has been ended by the other party'), {
      code: 'EPIPE',
      stack: 'Error: This socket has been ended by the other party\n    at Connection.writeCommand (/app/node_modules/.pnpm/mongodb@6.20.0/node_modules/mongodb/lib/cmap/connection.js:392:25)',
    });
    const elsewhere = Object.assign(new Error('write EPIPE'), { code: 'EPIPE', stack: 'Error: write EPIPE\n    at ChildProcess.stdin (/app/core/src/runtime/supervisor.ts:1:1)' });
    expect(toDomainError(named, logger)).toMatchObject({ code: 'DEPENDENCY_UNAVAILABLE', httpStatus: 503 });
    expect(toDomainError(raw, logger)).toMatchObject({ code: 'DEPENDENCY_UNAVAILABLE', httpStatus: 503 });
    expect(logger.records).toEqual([]);
    expect(toDomainError(elsewhere, logger)).toMatchObject({ code: 'INTERNAL' });
    expect(logger.records).toHaveLength(1);
  });
});
