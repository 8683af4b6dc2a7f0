import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/**
 * What is wrong with the params of a tools/call, in words a client author can act on, or
 * undefined when they have the shape the protocol asks for.
 */
export function toolCallParamsProblem(params: unknown): string | undefined {
  if (typeof params !== 'object' || params === null || Array.isArray(params)) return 'tools/call needs params: an object with the tool’s name and its arguments';
  const { name, arguments: args } = params as { name?: unknown; arguments?: unknown };
  if (typeof name !== 'string' || name === '') return 'params.name must be the name of a tool (a non-empty string)';
  if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) return 'params.arguments must be an object of the tool’s named inputs';
  return undefined;
}

/**
 * Answers a tools/call whose params are malformed with -32602 Invalid params and a plain message,
 * before the SDK reads it: the SDK parses requests with its own schema first and answers a failure
 * as -32603 Internal error carrying the raw validation dump. Installed after `connect`, in front
 * of the handler the server put on the transport.
 */
export function refuseMalformedToolCalls(transport: Transport): void {
  const deliver = transport.onmessage;
  transport.onmessage = (message: JSONRPCMessage, extra) => {
    if ('method' in message && message.method === 'tools/call' && 'id' in message) {
      const problem = toolCallParamsProblem(message.params);
      if (problem) {
        void transport.send({ jsonrpc: '2.0', id: message.id, error: { code: ErrorCode.InvalidParams, message: problem } }).catch((error: unknown) => transport.onerror?.(error instanceof Error ? error : new Error(String(error))));
        return;
      }
    }
    deliver?.(message, extra);
  };
}
