import { fromBinary, toBinary, type DescMessage, type DescMethod, type MessageShape } from '@bufbuild/protobuf';
import { makeGenericClientConstructor, type MethodDefinition, type ServiceDefinition } from '@grpc/grpc-js';
import { A2AService } from './gen/lf/a2a/v1/a2a_pb.ts';

type Any = MessageShape<DescMessage>;

function methodDefinition(method: DescMethod): MethodDefinition<Any, Any> {
  return {
    path: `/${A2AService.typeName}/${method.name}`,
    requestStream: false,
    responseStream: method.methodKind === 'server_streaming',
    requestSerialize: (value) => Buffer.from(toBinary(method.input, value)),
    requestDeserialize: (bytes) => fromBinary(method.input, bytes),
    responseSerialize: (value) => Buffer.from(toBinary(method.output, value)),
    responseDeserialize: (bytes) => fromBinary(method.output, bytes),
    originalName: method.localName,
  };
}

/**
 * `lf.a2a.v1.A2AService` as grpc-js serves and calls it, built from the descriptor protoc-gen-es
 * generated from the normative a2a.proto: every method by its proto name (`SendMessage`), its
 * messages encoded by @bufbuild/protobuf. The server and the tests' clients use this one table.
 */
export const A2A_GRPC_SERVICE: ServiceDefinition = Object.fromEntries(A2AService.methods.map((method) => [method.name, methodDefinition(method)]));

/** A grpc-js client of the service (for tests and tools): `new A2aGrpcClient('host:port', credentials)`. */
export const A2aGrpcClient = makeGenericClientConstructor(A2A_GRPC_SERVICE, A2AService.typeName);

/** The service's full name (`lf.a2a.v1.A2AService`), as metrics and paths name it. */
export const A2A_GRPC_SERVICE_NAME = A2AService.typeName;

/** The proto name and descriptor of each method, by proto name. */
export const A2A_GRPC_METHODS: ReadonlyMap<string, DescMethod> = new Map(A2AService.methods.map((method) => [method.name, method]));
