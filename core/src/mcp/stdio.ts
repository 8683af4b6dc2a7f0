import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../log/index.ts';

/**
 * Connects the server to stdio, answering a line it cannot read. The SDK's stdio transport hands
 * such a line's error to `onerror` and drops the line, so the client would wait for an answer
 * that never comes: a line that is not JSON gets a -32700 parse error and one that is JSON but
 * not a JSON-RPC message a -32600 invalid request (id null, as the line's id cannot be known),
 * and either one warn line on stderr (never the line itself, which may hold secrets).
 */
export async function connectStdio(server: Server, transport: StdioServerTransport, logger: Logger): Promise<void> {
  transport.onerror = (error) => {
    const unreadable = error.name === 'SyntaxError' ? { code: ErrorCode.ParseError, message: 'Parse error: the line is not JSON' } : error.name === 'ZodError' ? { code: ErrorCode.InvalidRequest, message: 'Invalid Request: the line is not a JSON-RPC 2.0 message' } : undefined;
    if (!unreadable) {
      logger.error('the MCP stdio transport failed', { error });
      return;
    }
    logger.warn(`an MCP client sent a line on stdin that could not be read (${unreadable.message})`);
    // A JSON-RPC error about an unreadable request carries id null (JSON-RPC 2.0 §5); the SDK's type has no room for it.
    void transport.send({ jsonrpc: '2.0', id: null, error: unreadable } as unknown as Parameters<StdioServerTransport['send']>[0]);
  };
  await server.connect(transport);
}
