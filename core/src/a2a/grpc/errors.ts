import { createRegistry, fromJson, toBinary, type JsonValue } from '@bufbuild/protobuf';
import { Metadata, status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';
import { toDomainError } from '../../errors/index.ts';
import type { Logger } from '../../log/index.ts';
import { restErrorBody } from '../rest/errors.ts';
import { BadRequestSchema, ErrorInfoSchema } from './gen/google/rpc/error_details_pb.ts';
import { StatusSchema } from './gen/google/rpc/status_pb.ts';

/** The detail messages the binding writes, to read their `@type` from the JSON details. */
const DETAIL_TYPES = createRegistry(ErrorInfoSchema, BadRequestSchema);

/** The trailer gRPC clients read a google.rpc.Status (with its details) from. */
export const STATUS_DETAILS_KEY = 'grpc-status-details-bin';

/** A gRPC status that is no A2A error (an agent not on this host, A2A switched off): its code and message, no details. */
export class GrpcStatusError extends Error {
  constructor(
    readonly code: GrpcStatus,
    message: string,
  ) {
    super(message);
  }
}

const codeOf = (name: string): GrpcStatus => (GrpcStatus as unknown as Record<string, GrpcStatus | undefined>)[name] ?? GrpcStatus.UNKNOWN;

/**
 * Anything thrown, as the gRPC status of spec §10.6: the code of the §5.4 table (the same
 * mapping as the HTTP+JSON binding, from rest/errors.ts: task not found NOT_FOUND, not cancelable,
 * push not supported, unsupported operation and version FAILED_PRECONDITION, invalid params
 * INVALID_ARGUMENT, no or a bad token UNAUTHENTICATED, no permission PERMISSION_DENIED), the
 * message, and a google.rpc.Status in `grpc-status-details-bin` whose details are the same
 * google.rpc.ErrorInfo (reason, domain "a2a-protocol.org") and google.rpc.BadRequest.
 */
export function grpcErrorOf(error: unknown, logger?: Logger): Partial<ServiceError> & { code: GrpcStatus; details: string; metadata: Metadata } {
  if (error instanceof GrpcStatusError) return { code: error.code, details: error.message, metadata: new Metadata() };
  const domain = toDomainError(error, logger);
  const { body } = restErrorBody(domain);
  // No such method is UNIMPLEMENTED in gRPC's own terms, not a missing task.
  const code = domain.code === 'METHOD_NOT_FOUND' ? GrpcStatus.UNIMPLEMENTED : codeOf(body.error.status);
  const status = fromJson(StatusSchema, { code, message: body.error.message, details: body.error.details as JsonValue[] }, { registry: DETAIL_TYPES });
  const metadata = new Metadata();
  metadata.set(STATUS_DETAILS_KEY, Buffer.from(toBinary(StatusSchema, status)));
  return { code, details: body.error.message, metadata };
}
