import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { sendWebResponse, toWebRequest } from '@service/core/http';
import { z } from 'zod';

/**
 * A contract double of CMS-A's `<siteUrl>/_mcp_tools` (docs/cms-a-mcp-tools.md): an MCP server
 * with a bearer check and nodes with revisions. It holds state in memory for one test file,
 * seeded from the contract fixture the Drupal module's endpoint is checked against as well.
 */
export const CONTRACT_FIXTURE = new URL('../../cms-plugins/cms-a/service_widget/modules/service_widget_tools/tests/fixtures/mcp_tools_contract.json', import.meta.url);

export interface ContractFixture {
  seed: { nid: string; type: string; title: string; fields: Revision['fields']; toolsUserMayEditFields?: boolean }[];
  steps: { name: string; tool: string; arguments: Record<string, unknown>; result?: unknown; error?: string }[];
}
export const contractFixture = (): ContractFixture => JSON.parse(readFileSync(CONTRACT_FIXTURE, 'utf8')) as ContractFixture;
interface Revision {
  revisionId: number;
  status: 'published' | 'draft';
  title: string;
  fields: { body: string; summary: string; media?: { url: string; alt?: string }[] };
}
interface StoredNode {
  nid: string;
  type: string;
  revisions: Revision[];
  /** False for a node whose fields the tools user may not edit (Drupal's field access). */
  fieldsEditable: boolean;
}

/** A CMS-A site answering `<siteUrl>/_mcp_tools`: the TypeScript double or the module's PHP endpoint. */
export interface CmsASite {
  siteUrl: string;
  key: string;
  /** What site_info calls the site. */
  siteName: string;
  /** The published revision as visitors see it. */
  published(nid: string): SiteRevision | undefined;
  /** Every revision of a node, oldest first. */
  revisions(nid: string): SiteRevision[];
  close(): Promise<void>;
}
export interface SiteRevision {
  revisionId: number;
  status: 'published' | 'draft';
  title: string;
  body: string;
}

export interface CmsADouble extends CmsASite {
  nodes: Map<string, StoredNode>;
}

const SITE_NAME = 'CMS-A double';
const WRITABLE = ['title', 'body', 'summary'];
const siteRevision = (revision: Revision): SiteRevision => ({ revisionId: revision.revisionId, status: revision.status, title: revision.title, body: revision.fields.body });

export async function startCmsADouble(key: string): Promise<CmsADouble> {
  let nextRevision = 100;
  const nodes = new Map<string, StoredNode>();
  // "locked" may get a draft revision but its fields may not be written: a failure in the middle of an edit.
  for (const node of contractFixture().seed) {
    nodes.set(node.nid, { nid: node.nid, type: node.type, fieldsEditable: node.toolsUserMayEditFields !== false, revisions: [{ revisionId: nextRevision++, status: 'published', title: node.title, fields: structuredClone(node.fields) }] });
  }

  const latest = (node: StoredNode) => node.revisions.at(-1)!;
  const publishedOf = (node: StoredNode) => [...node.revisions].reverse().find((r) => r.status === 'published');
  const view = (node: StoredNode, revision: Revision) => ({ nid: node.nid, type: node.type, title: revision.title, status: revision.status, revisionId: revision.revisionId, publishedRevisionId: publishedOf(node)?.revisionId ?? null, fields: revision.fields });
  const json = (value: unknown) => ({ content: [{ type: 'text' as const, text: JSON.stringify(value) }] });
  const fail = (text: string) => ({ isError: true, content: [{ type: 'text' as const, text }] });
  const find = (nid: string) => nodes.get(nid);

  function buildServer(): McpServer {
    const server = new McpServer({ name: 'cms-a-mcp-tools-double', version: '1.0.0' });
    server.registerTool('site_info', { description: 'Site name and version', inputSchema: {} }, async () => json({ name: SITE_NAME, version: '11.0' }));
    server.registerTool(
      'node_search',
      { description: 'Search nodes; editContext returns the latest revision', inputSchema: { nid: z.string().optional(), text: z.string().optional(), status: z.string().optional(), limit: z.number().optional(), editContext: z.boolean().optional() } },
      async ({ nid, text, status, limit, editContext }) => {
        const found = [...nodes.values()]
          .filter((node) => (nid ? node.nid === nid : true))
          .map((node) => view(node, editContext ? latest(node) : (publishedOf(node) ?? latest(node))))
          .filter((node) => (text ? `${node.title} ${node.fields.body}`.toLowerCase().includes(text.toLowerCase()) : true))
          .filter((node) => (status && status !== 'any' ? node.status === status : true))
          .slice(0, limit ?? 10);
        return json({ nodes: found });
      },
    );
    server.registerTool('node_create_draft_revision', { description: 'New draft revision from the latest', inputSchema: { nid: z.string(), message: z.string().optional() } }, async ({ nid }) => {
      const node = find(nid);
      if (!node) return fail(`Node ${nid} not found`);
      const revision: Revision = { ...structuredClone(latest(node)), revisionId: nextRevision++, status: 'draft' };
      node.revisions.push(revision);
      return json(view(node, revision));
    });
    server.registerTool('node_update', { description: 'Write fields to the draft revision', inputSchema: { nid: z.string(), fields: z.record(z.string(), z.unknown()).optional() } }, async ({ nid, fields }) => {
      if (!fields) return fail('fields is required: the title and field values to write');
      const unwritable = Object.keys(fields).filter((name) => !WRITABLE.includes(name));
      if (unwritable.length > 0) return fail(`These fields cannot be written through _mcp_tools: ${unwritable.join(', ')}. Writable: ${WRITABLE.join(', ')}.`);
      const node = find(nid);
      if (!node) return fail(`Node ${nid} not found`);
      const revision = latest(node);
      if (revision.status !== 'draft') return fail(`Node ${nid} has no draft revision; create one first`);
      if (!node.fieldsEditable) return fail(`Access denied: the tools user may not edit the fields of node ${nid}`);
      const { title, ...rest } = fields as { title?: string } & Record<string, unknown>;
      if (typeof title === 'string') revision.title = title;
      Object.assign(revision.fields, rest);
      return json(view(node, revision));
    });
    server.registerTool('node_publish', { description: 'Publish the draft revision', inputSchema: { nid: z.string() } }, async ({ nid }) => {
      const node = find(nid);
      if (!node) return fail(`Node ${nid} not found`);
      const revision = latest(node);
      if (revision.status !== 'draft') return fail(`Node ${nid} has no draft revision to publish`);
      revision.status = 'published';
      return json(view(node, revision));
    });
    return server;
  }

  const httpServer = http.createServer((req, res) => {
    void (async () => {
      const request = toWebRequest(req, `http://${req.headers.host}`, res);
      if (new URL(request.url).pathname !== '/_mcp_tools') return sendWebResponse(res, new Response('Not Found', { status: 404 }));
      if (request.headers.get('authorization') !== `Bearer ${key}`) return sendWebResponse(res, new Response('Unauthorized', { status: 401 }));
      const server = buildServer();
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      await server.connect(transport);
      await sendWebResponse(res, await transport.handleRequest(request));
      await server.close();
    })().catch(() => {
      res.statusCode = 500;
      res.end();
    });
  });
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  return {
    siteUrl: `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}`,
    key,
    nodes,
    siteName: SITE_NAME,
    published: (nid) => {
      const node = nodes.get(nid);
      const revision = node ? publishedOf(node) : undefined;
      return revision ? siteRevision(revision) : undefined;
    },
    revisions: (nid) => (nodes.get(nid)?.revisions ?? []).map(siteRevision),
    close: () => new Promise((resolve) => httpServer.close(() => resolve())),
  };
}
