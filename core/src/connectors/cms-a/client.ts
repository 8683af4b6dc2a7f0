import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { z } from 'zod';
import { DomainError } from '../../errors/index.ts';
import type { OutboundHttp } from '../../http/index.ts';
import { openObject } from '../portable-schemas.ts';

/** A node as the `_mcp_tools` module returns it (docs/cms-a-mcp-tools.md). */
export interface CmsANode {
  nid: string;
  type: string;
  title: string;
  status: 'published' | 'draft';
  revisionId: number;
  publishedRevisionId: number | null;
  fields: { body: string; summary: string; media?: { url: string; alt?: string }[] } & Record<string, unknown>;
}

/** A node as the primitives answer it; the site may add fields of its own. */
export const nodeOutput = openObject({
  nid: z.string(),
  type: z.string(),
  title: z.string(),
  status: z.enum(['published', 'draft']),
  revisionId: z.number().int(),
  publishedRevisionId: z.number().int().nullable(),
  fields: openObject({ body: z.string(), summary: z.string(), media: z.array(openObject({ url: z.string(), alt: z.string().optional() })).optional() }),
});

/**
 * The CMS-A tools module at `<siteUrl>/_mcp_tools`: an MCP server over Streamable HTTP, reached
 * with the instance's MCP key as a bearer token. One short session per call. With
 * `idempotencyKey` (an agent's tool call), each write carries `<key>.<n>` (its place among the
 * call's writes) as `_meta["service/idempotency-key"]`: the module makes a keyed call once and
 * answers a repeat with the first result.
 */
export function createCmsAClient(site: { siteUrl: string; mcpKey: string }, http: OutboundHttp, options: { idempotencyKey?: string } = {}) {
  // Through the outbound policy; the MCP session's answers may stream, so the timeout ends at their headers.
  const fetch = http.fetchWith({ streaming: true, timeoutMs: 30_000 });
  let writes = 0;
  const write = <T>(name: string, args: Record<string, unknown>) => tool<T>(name, args, options.idempotencyKey ? { 'service/idempotency-key': `${options.idempotencyKey}.${++writes}` } : undefined);
  async function tool<T>(name: string, args: Record<string, unknown>, meta?: Record<string, string>): Promise<T> {
    const client = new Client({ name: 'service-cms-a-connector', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${site.siteUrl}/_mcp_tools`), { fetch, requestInit: { headers: { authorization: `Bearer ${site.mcpKey}` } } });
    try {
      await client.connect(transport);
    } catch (error) {
      const refusal = outboundRefusal(error);
      if (refusal) throw refusal;
      const unauthorized = /401|Unauthorized/i.test(String(error));
      throw new DomainError(unauthorized ? 'FORBIDDEN' : 'UPSTREAM_FAILED', unauthorized ? `Drupal at ${site.siteUrl} refused the MCP key` : `Drupal at ${site.siteUrl} is unreachable`, { cause: error });
    }
    try {
      const result = await client.callTool({ name, arguments: args, ...(meta ? { _meta: meta } : {}) });
      const text = (result.content as { type: string; text?: string }[]).find((c) => c.type === 'text')?.text ?? '';
      if (result.isError) throw new DomainError(/not found/i.test(text) ? 'NOT_FOUND' : 'UPSTREAM_FAILED', `Drupal ${name}: ${text}`);
      return (result.structuredContent ?? JSON.parse(text)) as T;
    } finally {
      await client.close().catch(() => undefined);
    }
  }

  return {
    siteInfo: () => tool<{ name: string; version: string }>('site_info', {}),
    /** Reads go through the tools' search proxy; `editContext` returns the latest (draft) revision. */
    search: async (query: { nid?: string; text?: string; status?: string; limit?: number; editContext?: boolean }) => (await tool<{ nodes: CmsANode[] }>('node_search', query)).nodes,
    createDraftRevision: (nid: string, message?: string) => write<CmsANode>('node_create_draft_revision', { nid, ...(message ? { message } : {}) }),
    update: (nid: string, fields: Record<string, unknown>) => write<CmsANode>('node_update', { nid, fields }),
    publish: (nid: string) => write<CmsANode>('node_publish', { nid }),
  };
}

/** The address policy's refusal, when that is why the call failed; the MCP SDK may hand it back wrapped. */
function outboundRefusal(error: unknown): DomainError | null {
  for (let cause: unknown = error; cause instanceof Error; cause = cause.cause) {
    if (cause instanceof DomainError && cause.code === 'OUTBOUND_REFUSED') return cause;
  }
  return null;
}

export type CmsAClient = ReturnType<typeof createCmsAClient>;
