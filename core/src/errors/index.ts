export { DomainError, isDomainError, type DomainErrorOptions } from './domain-error.ts';
export { ERROR_TABLE, errorMapping, type ErrorCode } from './codes.ts';
export { isDatabaseUnreachable, toDomainError } from './to-domain-error.ts';
export { parseOrThrow, formatPath } from './validation.ts';
export { storageFullReason } from './storage-full.ts';
