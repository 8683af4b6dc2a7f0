import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

export interface SdkMcpServer {
  url: string;
  /** Every tool call the server received: the tool, its arguments and the request's `_meta`. */
  calls: { tool: string; args: Record<string, unknown>; meta: Record<string, unknown> | undefined }[];
  close(): Promise<void>;
}

/**
 * A third party's MCP server for tests, built with the MCP SDK's own `McpServer` over Streamable
 * HTTP (stateless: a server and transport per request), asking for `token` as a bearer. Tools:
 * `lookup` (read-only: what a search found, as structured content), `delete_page` (destructive,
 * says nothing else of itself: MCP's defaults), `fail` (answers a tool error).
 */
export async function startSdkMcpServer(options: { token: string }): Promise<SdkMcpServer> {
  const calls: SdkMcpServer['calls'] = [];
  const build = () => {
    const server = new McpServer({ name: 'docs-search', version: '1.0.0' });
    server.registerTool(
      'lookup',
      { title: 'Look up', description: 'Searches the documentation', inputSchema: { query: z.string() }, outputSchema: { hits: z.array(z.string()) }, annotations: { readOnlyHint: true } },
      async (args, extra) => {
        calls.push({ tool: 'lookup', args, meta: extra._meta as Record<string, unknown> | undefined });
        const hits = [`${args.query}: first page`, `${args.query}: second page`];
        return { content: [{ type: 'text', text: JSON.stringify({ hits }) }], structuredContent: { hits } };
      },
    );
    server.registerTool('delete_page', { description: 'Deletes a documentation page', inputSchema: { page: z.string() } }, async (args, extra) => {
      calls.push({ tool: 'delete_page', args, meta: extra._meta as Record<string, unknown> | undefined });
      return { content: [{ type: 'text', text: `deleted ${args.page}` }] };
    });
    server.registerTool('fail', { description: 'Always fails', inputSchema: {} }, async (args, extra) => {
      calls.push({ tool: 'fail', args, meta: extra._meta as Record<string, unknown> | undefined });
      return { isError: true, content: [{ type: 'text', text: 'the index is being rebuilt' }] };
    });
    return server;
  };
  const httpServer = http.createServer((req, res) => {
    if (req.headers.authorization !== `Bearer ${options.token}`) {
      res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer' }).end(JSON.stringify({ error: 'invalid_token' }));
      return;
    }
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const server = build();
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on('close', () => void transport.close().then(() => server.close()));
      void server.connect(transport).then(() => transport.handleRequest(req, res, body ? JSON.parse(body) : undefined));
    });
  });
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}/mcp`,
    calls,
    close: () => new Promise((resolve) => httpServer.close(() => resolve())),
  };
}
