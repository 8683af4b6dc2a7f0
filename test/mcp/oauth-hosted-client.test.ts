import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { auth, discoverAuthorizationServerMetadata, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { findFreePort } from '@service/core/net';
import { useTestDatabase } from '@service/core/testing';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installExampleAgents } from '../helpers/a2a.ts';
import { launchChromium, logCspViolations } from '../helpers/browser.ts';
import { INSPECTOR, cleanup, mcpEnv, startMcpHttp } from '../helpers/mcp-process.ts';
import { BrowserClientProvider, selfSignedCertificate, serveDocumentOverHttps, startCallbackServer } from '../helpers/oauth-browser-client.ts';
import { startService, type RunningService } from '../helpers/service-process.ts';

/**
 * A hosted MCP client that knows only the server's URL connects through OAuth: the MCP SDK's own
 * client auth (`auth()` behind its Streamable HTTP transport) discovers the authorization server
 * from the 401, registers (by metadata document or RFC 7591), and an admin consents in Chromium.
 */
const execFileAsync = promisify(execFile);
const t = useTestDatabase();
const GRANTED = ['cms_b_post_get', 'service_extensions_search'];

let service: RunningService;
let standalone: { url: string; stop(): Promise<void> };
let standaloneEnv: Record<string, string>;
let browser: Browser;
let context: BrowserContext;
let admin: { email: string; password: string };
let tls: ReturnType<typeof selfSignedCertificate>;
const errors: string[] = [];

beforeAll(async () => {
  await installExampleAgents(t.db, '@acme', ['summarizer']);
  tls = selfSignedCertificate();
  const port = await findFreePort();
  const masterKey = randomBytes(32).toString('base64');
  const standalonePort = await findFreePort();
  const shared = { SERVICE_VENDOR_SCOPE: '@acme', SERVICE_A2A_HTTP_ENABLED: 'true', SERVICE_MASTER_KEY: masterKey, SERVICE_BASE_URL: `http://127.0.0.1:${port}`, SERVICE_MCP_PUBLIC_URL: `http://127.0.0.1:${standalonePort}/mcp` };
  admin = { email: 'admin@acme.test', password: randomBytes(18).toString('base64url') };
  service = await startService({ mongodbUri: t.uri, env: { ...shared, PORT: String(port), NODE_EXTRA_CA_CERTS: tls.certPath, SERVICE_ADMIN_EMAIL: admin.email, SERVICE_ADMIN_PASSWORD: admin.password } });
  standaloneEnv = mcpEnv(t.uri, shared);
  standalone = await startMcpHttp(standaloneEnv, standalonePort);
  browser = await launchChromium();
  context = await browser.newContext();
}, 120_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await Promise.all([service?.stop(), standalone?.stop()]);
  if (standaloneEnv) cleanup(standaloneEnv);
});

async function watchedPage(): Promise<Page> {
  const page = await context.newPage();
  await logCspViolations(page);
  page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
  page.on('pageerror', (error) => errors.push(error.message));
  return page;
}

/**
 * Connects as a client that knows only `/api/mcp`: the first attempt is refused with the URL to
 * open, an admin consents to `tools` there, and the code reaches the client's redirect URI.
 */
async function connectThroughConsent(provider: BrowserClientProvider, callback: Awaited<ReturnType<typeof startCallbackServer>>, tools: string[]) {
  const endpoint = new URL(`${service.url}/api/mcp`);
  const first = new StreamableHTTPClientTransport(endpoint, { authProvider: provider });
  await expect(new Client({ name: 'hosted', version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
  const authorizationUrl = provider.authorizationUrl!;
  expect(authorizationUrl.origin + authorizationUrl.pathname).toBe(`${service.url}/oauth/authorize`);
  expect(authorizationUrl.searchParams.get('resource')).toBe(endpoint.href);
  expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');

  const page = await watchedPage();
  await page.goto(authorizationUrl.href);
  if (new URL(page.url()).pathname === '/sign-in') {
    // Not signed in yet: the sign-in page brings the admin back to the consent page.
    await page.getByLabel('Email').fill(admin.email);
    await page.getByLabel('Password').fill(admin.password);
    await Promise.all([page.waitForURL((url) => url.pathname === '/oauth/authorize'), page.getByRole('button', { name: /sign in/i }).click()]);
  }
  try {
    // The page names the exact redirect URI the browser will be sent to.
    await page.getByText(callback.url).first().waitFor({ timeout: 15_000 });
  } catch (error) {
    throw new Error(`no consent page at ${page.url()}:\n${(await page.locator('body').innerText()).slice(0, 2000)}`, { cause: error });
  }
  for (const tool of tools) await page.check(`input[name="primitive"][value="${tool}"]`);
  const answer = callback.next();
  await page.click('button[name="intent"][value="approve"]');
  const params = await Promise.race([answer, new Promise<never>((_, reject) => setTimeout(() => void page.locator('body').innerText().then((text) => reject(new Error(`the browser never reached the redirect URI; at ${page.url()}:\n${text.slice(0, 2000)}`))), 15_000))]);
  await page.waitForURL((url) => url.href.startsWith(callback.url), { waitUntil: 'load' });
  await page.close();
  expect(params.get('iss')).toBe(service.url);
  await first.finishAuth(params.get('code')!);

  const client = new Client({ name: 'hosted', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(endpoint, { authProvider: provider }));
  return client;
}

/** The client is cut off: its call is refused, the SDK's refresh too, so it asks for consent again. */
async function expectAskedForConsentAgain(client: Client, provider: BrowserClientProvider) {
  provider.authorizationUrl = undefined;
  await expect(client.listTools()).rejects.toBeInstanceOf(UnauthorizedError);
  expect(provider.authorizationUrl).toBeDefined();
  await client.close();
}

async function expectOnlyGranted(client: Client) {
  const { tools } = await client.listTools();
  expect(tools.map((tool) => tool.name).sort()).toEqual(GRANTED);
  const result = await client.callTool({ name: 'service_extensions_search', arguments: { query: 'summar' } });
  expect(result.isError).toBeFalsy();
  expect(JSON.parse((result.content as { text: string }[])[0]!.text)).toEqual([expect.objectContaining({ packageName: '@acme/summarizer' })]);
  const refused = await client.callTool({ name: 'cms_b_post_update', arguments: {} });
  expect(refused.isError).toBe(true);
}

describe('MCP for hosted clients: OAuth with an admin\'s consent', () => {
  it('a client registered by RFC 7591 signs the admin in, gets consent for two tools, and sees exactly those', async () => {
    const callback = await startCallbackServer();
    try {
      const provider = new BrowserClientProvider(callback.url);
      const client = await connectThroughConsent(provider, callback, GRANTED);
      expect(provider.information?.client_id).toMatch(/^mcp_/);
      expect(provider.saved).toMatchObject({ token_type: expect.stringMatching(/^bearer$/i), scope: 'mcp', refresh_token: expect.any(String) });
      await expectOnlyGranted(client);
      await client.close();

      const token = provider.saved!.access_token;
      // The Inspector's CLI over HTTP with that token lists the same two tools.
      const listed = JSON.parse((await execFileAsync(INSPECTOR, ['--cli', `${service.url}/api/mcp`, '--transport', 'http', '--header', `Authorization: Bearer ${token}`, '--method', 'tools/list'], { encoding: 'utf8', timeout: 60_000 })).stdout) as { tools: { name: string }[] };
      expect(listed.tools.map((tool) => tool.name).sort()).toEqual(GRANTED);

      // A token bound to /api/mcp is refused by another resource: the standalone server and A2A.
      const elsewhere = await fetch(standalone.url, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
      expect(elsewhere.status).toBe(401);
      expect(elsewhere.headers.get('www-authenticate')).toContain(`resource_metadata="${new URL(standalone.url).origin}/.well-known/oauth-protected-resource/mcp"`);
      const a2a = await fetch(`${service.url}/api/a2a`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { id: 'x' } }) });
      expect(a2a.status).toBe(401);
      const standaloneMetadata = (await (await fetch(`${new URL(standalone.url).origin}/.well-known/oauth-protected-resource/mcp`)).json()) as Record<string, unknown>;
      expect(standaloneMetadata).toMatchObject({ resource: standalone.url, authorization_servers: [service.url] });
    } finally {
      await callback.close();
    }
    expect(errors).toEqual([]);
  }, 120_000);

  it('a client named by its metadata document (fetched once, over https) connects the same way', async () => {
    const callback = await startCallbackServer();
    const document = await serveDocumentOverHttps(tls, 'client.json', (url) => ({ client_id: url, client_name: 'Metadata document client', redirect_uris: [callback.url], token_endpoint_auth_method: 'none' }));
    try {
      const provider = new BrowserClientProvider(callback.url, document.url);
      const client = await connectThroughConsent(provider, callback, GRANTED);
      expect(provider.information?.client_id).toBe(document.url);
      await expectOnlyGranted(client);
      await client.close();
      // Read for the consent page and for the code exchange, fetched once (cached).
      expect(document.fetches()).toBe(1);
    } finally {
      await Promise.all([callback.close(), document.close()]);
    }
    expect(errors).toEqual([]);
  }, 120_000);

  it('refreshes with rotation through the SDK, and an admin\'s Revoke on the connections page cuts the client off', async () => {
    const callback = await startCallbackServer();
    try {
      const provider = new BrowserClientProvider(callback.url, undefined, 'Client to revoke');
      const client = await connectThroughConsent(provider, callback, ['service_extensions_search']);
      const first = provider.saved!;
      // The SDK refreshes with its stored refresh token; the service rotates it.
      await expect(auth(provider, { serverUrl: `${service.url}/api/mcp` })).resolves.toBe('AUTHORIZED');
      expect(provider.saved!.refresh_token).not.toBe(first.refresh_token);
      expect(provider.saved!.access_token).not.toBe(first.access_token);
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['service_extensions_search']);

      const page = await watchedPage();
      await page.goto(`${service.url}/administration/mcp/connections`);
      const row = page.getByRole('row').filter({ hasText: 'Client to revoke' });
      await row.getByRole('button', { name: 'Revoke' }).click();
      await page.getByRole('alertdialog').getByRole('button', { name: 'Revoke' }).click();
      await page.getByText('Revoked Client to revoke: its tokens stop working within a second.').waitFor();
      await row.getByText('Revoked', { exact: true }).first().waitFor();
      await page.close();

      // Refused at once in the process that revoked it.
      await expectAskedForConsentAgain(client, provider);
    } finally {
      await callback.close();
    }
    expect(errors).toEqual([]);
  }, 120_000);

  it('a client that signs out revokes its refresh token (RFC 7009) at the endpoint the SDK discovers, and is cut off', async () => {
    const callback = await startCallbackServer();
    try {
      const provider = new BrowserClientProvider(callback.url, undefined, 'Client signing out');
      const client = await connectThroughConsent(provider, callback, ['service_extensions_search']);
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['service_extensions_search']);
      // The SDK's own discovery parses the metadata (its schema) and finds the revocation endpoint.
      const metadata = await discoverAuthorizationServerMetadata(service.url);
      const endpoint = metadata && 'revocation_endpoint' in metadata ? metadata.revocation_endpoint : undefined;
      expect(endpoint).toBe(`${service.url}/api/oauth/revoke`);
      const revoked = await fetch(endpoint!, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ client_id: provider.clientInformation()!.client_id, token: provider.saved!.refresh_token!, token_type_hint: 'refresh_token' }),
      });
      expect(revoked.status).toBe(200);
      // Refused at once in the process that revoked it, the live access token and the refresh token both.
      await expectAskedForConsentAgain(client, provider);
    } finally {
      await callback.close();
    }
    expect(errors).toEqual([]);
  }, 120_000);

  it('refuses, on the page and without redirecting, a metadata document that is too large or names another client', async () => {
    const callback = await startCallbackServer();
    let reached = false;
    void callback.next().then(() => (reached = true));
    const large = await serveDocumentOverHttps(tls, 'large.json', (url) => ({ client_id: url, client_name: 'Large', redirect_uris: [callback.url], padding: 'x'.repeat(6 * 1024) }));
    const impostor = await serveDocumentOverHttps(tls, 'impostor.json', () => ({ client_id: 'https://claude.ai/oauth/mcp-client', client_name: 'Claude', redirect_uris: [callback.url] }));
    try {
      const page = await watchedPage();
      for (const [document, reason] of [
        [large, /larger than 5120 bytes|more than 5120 bytes/],
        [impostor, /names another client_id than its own URL/],
      ] as const) {
        const url = new URL(`${service.url}/oauth/authorize`);
        url.search = new URLSearchParams({ response_type: 'code', client_id: document.url, redirect_uri: callback.url, code_challenge: 'a'.repeat(43), code_challenge_method: 'S256', state: 's' }).toString();
        const response = await page.goto(url.href);
        expect(response?.status()).toBe(400);
        await expect(page.locator('body').innerText()).resolves.toMatch(reason);
        expect(await page.locator('input[name="primitive"]').count()).toBe(0);
      }
      await page.close();
      expect(reached).toBe(false);
    } finally {
      await Promise.all([callback.close(), large.close(), impostor.close()]);
    }
  }, 120_000);
});
