/**
 * A read primitive over MCP (the standalone mcp-server over HTTP: JWT check, grant gate, input
 * validation, sealed credential, then WordPress) against the same REST call made directly to
 * WordPress, interleaved. Reports the overhead ratio.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { testServices } from '@service/core/testing/services';
import { cleanup, mcpEnv, startMcpHttp } from '../helpers/mcp-process.ts';
import { startWordPress } from '../helpers/wordpress.ts';
import { benchDatabase } from './bench-environment.ts';
import { report, sideBySide } from './harness.ts';

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 60);
const database = await benchDatabase('bench_mcp');
const wp = await startWordPress();
const uri = `mongodb://${database.db.connection.host}:${database.db.connection.port}/${database.db.connection.name}`;
const env = mcpEnv(uri);
const services = testServices(database.db, { SERVICE_MASTER_KEY: env.SERVICE_MASTER_KEY! });
const admin = { type: 'ui', id: 'bench', email: 'b@bench.test', role: 'admin' } as const;
await services.connectorInstances.put(admin, { connector: 'cms_b', id: 'site', name: 'Bench', siteUrl: wp.url, username: wp.username, credential: wp.applicationPassword });
const { client } = await services.oauth.clients.register(admin, { name: 'bench', allowedAgents: [], permissions: [], allowedPrimitives: ['cms_b'] });
const token = (await services.oauth.tokens.issue(client)).access_token;
const mcp = await startMcpHttp(env);
const mcpClient = new Client({ name: 'bench', version: '1.0.0' });
try {
  await mcpClient.connect(new StreamableHTTPClientTransport(new URL(mcp.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  const post = (await services.primitives.call({ type: 'worker', id: 'bench', job: 'bench' }, 'cms_b_post_create_draft', { instanceId: 'site', title: 'Bench post', content: 'Body.' })) as { id: number };
  const auth = `Basic ${Buffer.from(`${wp.username}:${wp.applicationPassword}`).toString('base64')}`;
  const result = await sideBySide(
    'read one post with edit context',
    { iterations: ITERATIONS, warmup: 5 },
    {
      name: 'REST GET /wp-json/wp/v2/posts/{id}?context=edit',
      run: async () => {
        const response = await fetch(`${wp.url}/wp-json/wp/v2/posts/${post.id}?context=edit`, { headers: { authorization: auth } });
        if (!response.ok) throw new Error(`REST ${response.status}`);
        await response.json();
      },
    },
    {
      name: 'MCP tools/call cms_b_post_get over HTTP',
      run: async () => {
        const reply = await mcpClient.callTool({ name: 'cms_b_post_get', arguments: { instanceId: 'site', id: post.id } });
        if (reply.isError) throw new Error(JSON.stringify(reply.content));
      },
    },
  );
  console.log(`  database: ${database.kind}`);
  report(result);
} finally {
  await mcpClient.close().catch(() => undefined);
  await mcp.stop();
  cleanup(env);
  await wp.stop();
  await database.stop();
}
