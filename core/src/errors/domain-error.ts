import { type ErrorCode, errorMapping } from './codes.ts';

export interface DomainErrorOptions {
  cause?: unknown;
  /** Safe, user-facing structured detail (for example the list of invalid fields). */
  details?: unknown;
}

export class DomainError extends Error {
  override name = 'DomainError';
  readonly code: ErrorCode;
  readonly details: unknown;

  constructor(code: ErrorCode, message: string, options: DomainErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.details = options.details;
  }

  get httpStatus(): number {
    return errorMapping(this.code).http;
  }

  get jsonRpcCode(): number {
    return errorMapping(this.code).jsonRpc;
  }

  get trpcCode() {
    return errorMapping(this.code).trpc;
  }

  /** What a client may see: internal errors never leak their message or cause. */
  toPublicJSON(): { code: ErrorCode; message: string; details?: unknown } {
    if (this.code === 'INTERNAL') return { code: 'INTERNAL', message: 'Internal error' };
    return this.details === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, details: this.details };
  }
}

export function isDomainError(value: unknown): value is DomainError {
  return value instanceof DomainError;
}
