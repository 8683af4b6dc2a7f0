import type { Database } from '@service/core/db';
import { installExampleAgents } from '@service/core/testing/example-agents';
import { testServices as createServicesForTest } from '@service/core/testing/services';
import { randomUUID } from 'node:crypto';
import { startService } from './service-process.ts';

export { installExampleAgents };

/** Client credentials → access token at the instance's token endpoint, over real HTTP. */
export async function fetchAccessToken(tokenEndpoint: string, clientId: string, clientSecret: string): Promise<string> {
  const response = await fetch(tokenEndpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}` },
    body: new URLSearchParams({ grant_type: 'client_credentials' }),
  });
  if (!response.ok) throw new Error(`token endpoint answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { access_token: string }).access_token;
}

/**
 * One A2A host for a test: the example agents installed in `scope`, an OAuth client with every
 * permission, the service started with A2A on, and a token for that client.
 */
export async function startA2aHost(database: Database, options: { mongodbUri: string; scope: string; env?: Record<string, string>; agents?: string[]; maxOpenFiles?: number }) {
  await installExampleAgents(database, options.scope, options.agents ?? ['summarizer']);
  const { client, clientSecret } = await createServicesForTest(database).oauth.clients.register(
    { type: 'ui', id: 'admin', email: `admin@${options.scope.slice(1)}.test`, role: 'admin' },
    { name: 'test client', allowedAgents: ['*'], permissions: ['list', 'read', 'execute'] },
  );
  const env = { SERVICE_VENDOR_SCOPE: options.scope, SERVICE_A2A_HTTP_ENABLED: 'true', ...options.env };
  const service = await startService({ mongodbUri: options.mongodbUri, env, maxOpenFiles: options.maxOpenFiles });
  const token = await fetchAccessToken(`${service.url}/api/oauth/token`, client.clientId, clientSecret);
  /** A fresh token for the same client (tokens live ten minutes). */
  const newToken = () => fetchAccessToken(`${service.url}/api/oauth/token`, client.clientId, clientSecret);
  return { service, token, newToken, env };
}

/** A2A v1.0 `SendMessage` over JSON-RPC that must come back completed: the round trip the overhead benches time. */
export async function sendCompletedV1(url: string, bearer: string, text = 'Echo this. Now.'): Promise<void> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', authorization: `Bearer ${bearer}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }] } } }),
  });
  const body = (await response.json()) as { result?: { task?: { status: { state: string } } } };
  if (body.result?.task?.status.state !== 'TASK_STATE_COMPLETED') throw new Error(`unexpected reply: ${JSON.stringify(body)}`);
}
