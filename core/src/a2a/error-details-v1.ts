import { toDomainError } from '../errors/index.ts';
import type { Logger } from '../log/index.ts';
import { A2A_DOMAIN, A2A_REASONS, BAD_REQUEST, ERROR_INFO } from './error-info.ts';
import { rpcError, type JsonRpcId } from './jsonrpc.ts';

/** The reasons of the codes JSON-RPC and A2A define; the service's own codes (-3205x) keep their names. */
const STANDARD_REASONS: Record<number, string> = {
  [-32700]: 'PARSE_ERROR',
  [-32600]: 'INVALID_REQUEST',
  [-32601]: 'METHOD_NOT_FOUND',
  [-32602]: 'INVALID_PARAMS',
  [-32603]: 'INTERNAL_ERROR',
  ...A2A_REASONS,
};

const isFieldList = (value: unknown): value is { path: string; reason: string }[] =>
  Array.isArray(value) && value.length > 0 && value.every((item) => item && typeof item === 'object' && typeof (item as { path?: unknown }).path === 'string' && typeof (item as { reason?: unknown }).reason === 'string');

/**
 * A v1.0 JSON-RPC error: `data` is a list of typed details, each with its `@type` (the spec's
 * error-details rule, as the SDK servers write them): a google.rpc.ErrorInfo naming the reason,
 * then a google.rpc.BadRequest when the error names fields. `serviceDomain` is the ErrorInfo
 * domain of the service's own codes.
 */
export function rpcErrorV1(id: JsonRpcId, error: unknown, options: { logger?: Logger; serviceDomain: string }) {
  // The reason is the service's code, never a raw error's own `code` (a driver's EPIPE is not the caller's business).
  const domain = toDomainError(error, options.logger);
  const payload = rpcError(id, domain);
  const { code, message } = payload.error;
  const details = 'data' in payload.error ? payload.error.data : undefined;
  const standard = STANDARD_REASONS[code];
  const info: Record<string, unknown> = {
    '@type': ERROR_INFO,
    reason: standard ?? domain.code,
    domain: standard ? A2A_DOMAIN : options.serviceDomain,
  };
  const data: Record<string, unknown>[] = [info];
  if (isFieldList(details)) data.push({ '@type': BAD_REQUEST, fieldViolations: details.map((d) => ({ field: d.path, description: d.reason })) });
  else if (details !== undefined) info.metadata = { details: JSON.stringify(details).slice(0, 2000) };
  return { jsonrpc: '2.0' as const, id, error: { code, message, data } };
}
