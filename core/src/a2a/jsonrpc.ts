import { DomainError, toDomainError } from '../errors/index.ts';
import type { Logger } from '../log/index.ts';

export type JsonRpcId = string | number | null;

export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: JsonRpcId;
  method: string;
  params?: unknown;
}

export function rpcResult(id: JsonRpcId, result: unknown) {
  return { jsonrpc: '2.0' as const, id, result };
}

/** A JSON-RPC error object from anything thrown; internal errors never show their message. */
export function rpcError(id: JsonRpcId, error: unknown, logger?: Logger) {
  const domain = toDomainError(error, logger);
  const body = domain.toPublicJSON();
  return {
    jsonrpc: '2.0' as const,
    id,
    error: { code: domain.jsonRpcCode, message: body.message, ...(body.details !== undefined ? { data: body.details } : {}) },
  };
}

/** Parses and checks the JSON-RPC 2.0 envelope: -32700 for bad JSON, -32600 for a bad request. */
export function parseEnvelope(text: string): JsonRpcRequest {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new DomainError('PARSE_ERROR', 'Parse error: the body is not JSON');
  }
  if (Array.isArray(value)) throw new DomainError('BAD_REQUEST', 'Invalid Request: batches are not supported');
  if (!value || typeof value !== 'object') throw new DomainError('BAD_REQUEST', 'Invalid Request: not a JSON-RPC object');
  const request = value as Record<string, unknown>;
  const id = request.id;
  if (request.jsonrpc !== '2.0') throw withId(new DomainError('BAD_REQUEST', 'Invalid Request: jsonrpc must be "2.0"'), id);
  if (typeof request.method !== 'string' || !request.method) throw withId(new DomainError('BAD_REQUEST', 'Invalid Request: method must be a string'), id);
  if (id !== undefined && id !== null && typeof id !== 'string' && typeof id !== 'number') throw new DomainError('BAD_REQUEST', 'Invalid Request: id must be a string, number or null');
  return { jsonrpc: '2.0', id: (id ?? null) as JsonRpcId, method: request.method, params: request.params };
}

/** Keeps the request id on an envelope error when the id itself was readable. */
function withId(error: DomainError, id: unknown): DomainError {
  if (typeof id === 'string' || typeof id === 'number') Object.assign(error, { rpcId: id });
  return error;
}

export function rpcIdOf(error: unknown): JsonRpcId {
  const id = (error as { rpcId?: unknown } | null)?.rpcId;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}
