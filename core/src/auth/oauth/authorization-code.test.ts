import { createHash, randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { testServices, useTestDatabase } from '../../testing/index.ts';
import type { Services } from '../../index.ts';

const t = useTestDatabase();
let services: Services;
const admin = { type: 'ui', id: 'admin', email: 'a@x.test', role: 'admin' } as const;
const origin = 'http://127.0.0.1:3999';
const mcpResource = `${origin}/api/mcp`;
const redirectUri = 'http://127.0.0.1:43210/callback';

beforeAll(() => {
  services = testServices(t.db);
});

const form = (body: Record<string, string>, headers: Record<string, string> = {}) =>
  new Request(`${origin}/api/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(body) });

async function registerClient(metadata: Record<string, unknown> = {}) {
  const response = await services.handlers.oauthRegister(
    new Request(`${origin}/api/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ client_name: 'Hosted client', redirect_uris: [redirectUri], ...metadata }) }),
  );
  return { status: response.status, body: (await response.json()) as Record<string, string> };
}

function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** Registers, reads the authorization request, approves it for `primitives`, and returns the code. */
async function consentedCode(primitives: string[], extra: Record<string, string> = {}) {
  const { body: client } = await registerClient();
  const { verifier, challenge } = pkce();
  const check = await services.oauth.authorization.read(
    new URLSearchParams({ response_type: 'code', client_id: client.client_id!, redirect_uri: redirectUri, code_challenge: challenge, code_challenge_method: 'S256', state: 'xyz', resource: mcpResource, ...extra }),
  );
  if (check.kind !== 'consent') throw new Error(`expected a consent page, got ${JSON.stringify(check)}`);
  const location = new URL(await services.oauth.authorization.approve(admin, check.request, primitives));
  expect(location.origin + location.pathname).toBe(redirectUri);
  expect(location.searchParams.get('state')).toBe('xyz');
  expect(location.searchParams.get('iss')).toBe(origin);
  return { clientId: client.client_id!, code: location.searchParams.get('code')!, verifier };
}

const redeem = (code: { clientId: string; code: string; verifier: string }, extra: Record<string, string> = {}) =>
  services.handlers.oauthToken(form({ grant_type: 'authorization_code', client_id: code.clientId, code: code.code, code_verifier: code.verifier, redirect_uri: redirectUri, resource: mcpResource, ...extra }));

describe('OAuth authorization code flow (MCP clients)', () => {
  it('publishes protected resource metadata and answers an unauthenticated MCP request with where to find it', async () => {
    const metadata = (await (await services.handlers.mcpResourceMetadata(new Request(`${origin}/.well-known/oauth-protected-resource/api/mcp`))).json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({ resource: mcpResource, authorization_servers: [origin], scopes_supported: ['mcp'] });
    const server = (await (await services.handlers.oauthMetadata(new Request(`${origin}/.well-known/oauth-authorization-server`))).json()) as Record<string, unknown>;
    expect(server).toMatchObject({ authorization_endpoint: `${origin}/oauth/authorize`, registration_endpoint: `${origin}/api/oauth/register`, code_challenge_methods_supported: ['S256'], client_id_metadata_document_supported: true });
    const unauthenticated = await services.handlers.mcp(new Request(mcpResource, { method: 'POST', headers: { host: '127.0.0.1:3999', 'content-type': 'application/json' }, body: '{}' }));
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/api/mcp", scope="mcp"`);
  });

  it('registers public and confidential clients (RFC 7591) and refuses redirect URIs that could leak a code', async () => {
    const publicClient = await registerClient();
    expect(publicClient.status).toBe(201);
    expect(publicClient.body).toMatchObject({ token_endpoint_auth_method: 'none', redirect_uris: [redirectUri] });
    expect(publicClient.body.client_secret).toBeUndefined();
    const confidential = await registerClient({ token_endpoint_auth_method: 'client_secret_post' });
    expect(confidential.body.client_secret).toMatch(/^svs_/);
    for (const uri of ['http://example.com/callback', 'javascript:alert(1)', 'https://example.com/cb#frag', 'not a url']) {
      const refused = await registerClient({ redirect_uris: [uri] });
      expect(refused.status, uri).toBe(400);
      expect(refused.body.error).toBe('invalid_redirect_uri');
    }
    expect((await registerClient({ grant_types: ['client_credentials'] })).status).toBe(400);
  });

  it('never redirects to an unregistered URI, and sends request errors back to a registered one', async () => {
    const { body: client } = await registerClient();
    const { challenge } = pkce();
    const base = { response_type: 'code', client_id: client.client_id!, redirect_uri: redirectUri, code_challenge: challenge, code_challenge_method: 'S256', state: 's' };
    expect((await services.oauth.authorization.read(new URLSearchParams({ ...base, client_id: 'mcp_unknown' }))).kind).toBe('refuse');
    expect((await services.oauth.authorization.read(new URLSearchParams({ ...base, redirect_uri: 'https://attacker.example/cb' }))).kind).toBe('refuse');
    // A loopback redirect may use another port (RFC 8252 §7.3).
    expect((await services.oauth.authorization.read(new URLSearchParams({ ...base, redirect_uri: 'http://127.0.0.1:50000/callback' }))).kind).toBe('consent');
    const errorOf = async (params: Record<string, string>) => {
      const check = await services.oauth.authorization.read(new URLSearchParams(params));
      if (check.kind !== 'redirect') throw new Error(`expected a redirect, got ${check.kind}`);
      return new URL(check.location).searchParams.get('error');
    };
    expect(await errorOf({ ...base, code_challenge_method: 'plain' })).toBe('invalid_request');
    expect(await errorOf({ ...base, response_type: 'token' })).toBe('unsupported_response_type');
    expect(await errorOf({ ...base, resource: 'https://other.example/mcp' })).toBe('invalid_target');
  });

  it('exchanges a code once, with its PKCE verifier, for a token bound to /api/mcp that carries only the consented tools', async () => {
    const code = await consentedCode(['service_extensions_search']);
    const wrongVerifier = await redeem({ ...code, verifier: pkce().verifier });
    expect(wrongVerifier.status).toBe(400);
    expect(await wrongVerifier.json()).toMatchObject({ error: 'invalid_grant' });
    // Nor another client's id (a public client proves nothing but its id): neither guess spends the code.
    const { body: other } = await registerClient();
    expect(await (await redeem({ ...code, clientId: other.client_id! })).json()).toMatchObject({ error: 'invalid_grant' });

    const response = await redeem(code);
    expect(response.status).toBe(200);
    const tokens = (await response.json()) as { access_token: string; refresh_token: string; scope: string };
    expect(tokens.scope).toBe('mcp');
    const actor = await services.oauth.tokens.verify(tokens.access_token, mcpResource);
    expect(actor.grants).toEqual({ allowedAgents: [], permissions: [], allowedPrimitives: ['service_extensions_search'] });
    // Not for A2A (whose audience is the origin), nor for another MCP resource.
    await expect(services.oauth.tokens.verify(tokens.access_token)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    await expect(services.oauth.tokens.verify(tokens.access_token, 'https://mcp.other.example/mcp')).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
  });

  it('redeems a code at most once when two requests race for it, and leaves no working token behind (a race is a replay)', async () => {
    const code = await consentedCode(['*']);
    const answers = await Promise.all([redeem(code), redeem(code)]);
    const statuses = answers.map((answer) => answer.status).sort();
    // The loser's presentation is a replay (RFC 6749 §4.1.2): whatever the winner got is revoked,
    // before it answers (it reads the loser's mark) or right after (the loser revokes it).
    expect([[200, 400], [400, 400]]).toContainEqual(statuses);
    const winner = answers.find((answer) => answer.status === 200);
    if (winner) await expect(services.oauth.tokens.verify(((await winner.json()) as { access_token: string }).access_token, mcpResource)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    const connections = (await services.oauth.consents.list(admin)).filter((row) => row.clientId === code.clientId);
    expect(connections).toEqual([expect.objectContaining({ revoked: true, revokedReason: 'authorization code used twice' })]);
  });

  it('revokes the connection when its code is presented again after it was redeemed', async () => {
    const code = await consentedCode(['*']);
    const tokens = (await (await redeem(code)).json()) as { access_token: string };
    expect((await services.oauth.tokens.verify(tokens.access_token, mcpResource)).grants?.allowedPrimitives).toEqual(['*']);
    expect(await (await redeem(code)).json()).toMatchObject({ error: 'invalid_grant' });
    await expect(services.oauth.tokens.verify(tokens.access_token, mcpResource)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
  });

  it('takes a token request without redirect_uri when the authorization request had none (RFC 6749 §4.1.3)', async () => {
    const { body: client } = await registerClient();
    const { verifier, challenge } = pkce();
    const check = await services.oauth.authorization.read(new URLSearchParams({ response_type: 'code', client_id: client.client_id!, code_challenge: challenge, code_challenge_method: 'S256' }));
    if (check.kind !== 'consent') throw new Error(check.kind);
    expect(check.request.redirectUri).toBe(redirectUri);
    const code = new URL(await services.oauth.authorization.approve(admin, check.request, [])).searchParams.get('code')!;
    const response = await services.handlers.oauthToken(form({ grant_type: 'authorization_code', client_id: client.client_id!, code, code_verifier: verifier }));
    expect(response.status).toBe(200);
  });

  it('counts only failed token requests against a client id, so naming a public client cannot lock its users out', async () => {
    const code = await consentedCode(['cms_a']);
    const { refresh_token } = (await (await redeem(code)).json()) as { refresh_token: string };
    // 30 failures are allowed in a minute; from the 31st, each failure is answered 429 until the window ends.
    for (let i = 0; i < 31; i++) await services.handlers.oauthToken(form({ grant_type: 'refresh_token', client_id: code.clientId, refresh_token: `svr_guess${i}` }));
    const limited = await services.handlers.oauthToken(form({ grant_type: 'refresh_token', client_id: code.clientId, refresh_token: 'svr_guess' }));
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // The owner's valid refresh token still passes, in the same window; another id is not affected.
    expect((await services.handlers.oauthToken(form({ grant_type: 'refresh_token', client_id: code.clientId, refresh_token }))).status).toBe(200);
    const other = await consentedCode(['cms_a']);
    expect((await redeem(other)).status).toBe(200);
  });

  it('never fetches a metadata document at the token endpoint: such a client is public, and its code must be its own', async () => {
    const response = await services.handlers.oauthToken(form({ grant_type: 'authorization_code', client_id: 'https://127.0.0.1:1/never-fetched.json', code: 'x', code_verifier: pkce().verifier, redirect_uri: redirectUri }));
    expect(await response.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('rotates refresh tokens; a spent one presented again revokes the grant', async () => {
    const code = await consentedCode(['cms_b']);
    const first = (await (await redeem(code)).json()) as { access_token: string; refresh_token: string };
    const refresh = (token: string) => services.handlers.oauthToken(form({ grant_type: 'refresh_token', client_id: code.clientId, refresh_token: token, resource: mcpResource }));
    const second = await refresh(first.refresh_token);
    expect(second.status).toBe(200);
    const rotated = (await second.json()) as { access_token: string; refresh_token: string };
    expect(rotated.refresh_token).not.toBe(first.refresh_token);
    expect((await services.oauth.tokens.verify(rotated.access_token, mcpResource)).grants?.allowedPrimitives).toEqual(['cms_b']);
    const replay = await refresh(first.refresh_token);
    expect(await replay.json()).toMatchObject({ error: 'invalid_grant' });
    // The grant is gone: the rotated refresh token and the live access token with it.
    expect(await (await refresh(rotated.refresh_token)).json()).toMatchObject({ error: 'invalid_grant' });
    await expect(services.oauth.tokens.verify(rotated.access_token, mcpResource)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
  });

  it('an admin revocation stops the access token and the refresh token, and is audited', async () => {
    const code = await consentedCode(['cms_a']);
    const tokens = (await (await redeem(code)).json()) as { access_token: string; refresh_token: string };
    const [grant] = (await services.oauth.consents.list(admin)).filter((row) => row.clientId === code.clientId);
    await services.oauth.consents.revoke(admin, grant!.grantId);
    await expect(services.oauth.tokens.verify(tokens.access_token, mcpResource)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    const refreshed = await services.handlers.oauthToken(form({ grant_type: 'refresh_token', client_id: code.clientId, refresh_token: tokens.refresh_token }));
    expect(await refreshed.json()).toMatchObject({ error: 'invalid_grant' });
    await expect(services.oauth.consents.revoke({ type: 'a2a', id: 'x', clientId: 'x' }, grant!.grantId)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await services.audit.flush();
    const actions = (await t.db.models.AuditEvent.find({ resourceId: { $in: [grant!.grantId, code.clientId] } }).lean()).map((row) => row.action);
    expect(actions).toEqual(expect.arrayContaining(['oauth_grant.consent', 'oauth_grant.revoke']));
  });

  it('a confidential registered client must authenticate as it registered', async () => {
    const { body: client } = await registerClient({ token_endpoint_auth_method: 'client_secret_basic' });
    const { verifier, challenge } = pkce();
    const check = await services.oauth.authorization.read(new URLSearchParams({ response_type: 'code', client_id: client.client_id!, redirect_uri: redirectUri, code_challenge: challenge, code_challenge_method: 'S256' }));
    if (check.kind !== 'consent') throw new Error(check.kind);
    const code = new URL(await services.oauth.authorization.approve(admin, check.request, [])).searchParams.get('code')!;
    const body = { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: redirectUri };
    const unauthenticated = await services.handlers.oauthToken(form({ ...body, client_id: client.client_id! }));
    expect(unauthenticated.status).toBe(401);
    const basic = `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`;
    expect((await services.handlers.oauthToken(form(body, { authorization: basic }))).status).toBe(200);
  });
});

describe('token revocation by the client (RFC 7009)', () => {
  const revoke = (body: Record<string, string>, headers: Record<string, string> = {}) =>
    services.handlers.oauthRevoke(new Request(`${origin}/api/oauth/revoke`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(body) }));
  const connected = async () => {
    const code = await consentedCode(['cms_a']);
    const tokens = (await (await redeem(code)).json()) as { access_token: string; refresh_token: string };
    return { clientId: code.clientId, ...tokens };
  };
  const refresh = (clientId: string, token: string) => services.handlers.oauthToken(form({ grant_type: 'refresh_token', client_id: clientId, refresh_token: token }));

  it('is published in the authorization server metadata', async () => {
    const server = (await (await services.handlers.oauthMetadata(new Request(`${origin}/.well-known/oauth-authorization-server`))).json()) as Record<string, unknown>;
    expect(server).toMatchObject({ revocation_endpoint: `${origin}/api/oauth/revoke`, revocation_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'] });
  });

  it('revokes the whole grant from its refresh token: the access token stops, the refresh token is spent, and it is audited', async () => {
    const client = await connected();
    expect((await services.oauth.tokens.verify(client.access_token, mcpResource)).grants?.allowedPrimitives).toEqual(['cms_a']);
    const revoked = await revoke({ client_id: client.clientId, token: client.refresh_token, token_type_hint: 'refresh_token' });
    expect(revoked.status).toBe(200);
    expect(revoked.headers.get('cache-control')).toBe('no-store');
    await expect(services.oauth.tokens.verify(client.access_token, mcpResource)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    expect(await (await refresh(client.clientId, client.refresh_token)).json()).toMatchObject({ error: 'invalid_grant' });
    // Revoking it again is no error: there is nothing left to do.
    expect((await revoke({ client_id: client.clientId, token: client.refresh_token })).status).toBe(200);
    const [grant] = (await services.oauth.consents.list(admin)).filter((row) => row.clientId === client.clientId);
    expect(grant).toMatchObject({ revoked: true, revokedReason: 'revoked by the client' });
    await services.audit.flush();
    expect((await t.db.models.AuditEvent.find({ resourceId: grant!.grantId, action: 'oauth_grant.revoke' }).lean()).map((row) => row.details)).toEqual([{ reason: 'revoked by the client' }]);
  });

  it('revokes the grant from its access token, with or without a hint', async () => {
    const client = await connected();
    expect((await revoke({ client_id: client.clientId, token: client.access_token, token_type_hint: 'refresh_token' })).status).toBe(200);
    await expect(services.oauth.tokens.verify(client.access_token, mcpResource)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    expect(await (await refresh(client.clientId, client.refresh_token)).json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('refuses a token issued to another client and leaves its grant alone; answers 200 for a token that is not one', async () => {
    const mine = await connected();
    const theirs = await connected();
    for (const token of [theirs.refresh_token, theirs.access_token]) {
      const refused = await revoke({ client_id: mine.clientId, token });
      expect(refused.status).toBe(400);
      expect(await refused.json()).toMatchObject({ error: 'invalid_request', error_description: 'the token was not issued to this client' });
    }
    expect((await services.oauth.tokens.verify(theirs.access_token, mcpResource)).clientId).toBe(theirs.clientId);
    for (const token of ['svr_not-a-token', 'not.a.jwt', `${theirs.access_token.slice(0, -4)}AAAA`]) expect((await revoke({ client_id: mine.clientId, token })).status, token).toBe(200);
    expect((await services.oauth.tokens.verify(theirs.access_token, mcpResource)).clientId).toBe(theirs.clientId);
  });

  it('authenticates the client as the token endpoint does, and says what is wrong with a bad request', async () => {
    const client = await connected();
    expect(await (await revoke({ client_id: client.clientId })).json()).toMatchObject({ error: 'invalid_request', error_description: 'token is required' });
    expect((await revoke({ token: client.refresh_token })).status).toBe(401);
    expect((await revoke({ client_id: 'mcp_unknown', token: client.refresh_token })).status).toBe(401);
    expect((await revoke({ client_id: client.clientId, client_secret: 'a public client has none', token: client.refresh_token })).status).toBe(401);
    expect((await services.handlers.oauthRevoke(new Request(`${origin}/api/oauth/revoke`, { method: 'GET' }))).status).toBe(405);
    expect((await services.handlers.oauthRevoke(new Request(`${origin}/api/oauth/revoke`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }))).status).toBe(400);
    // Nothing above revoked anything.
    expect((await services.oauth.tokens.verify(client.access_token, mcpResource)).clientId).toBe(client.clientId);
  });

  it('refuses a machine client’s token: those clients do not authenticate here, and an admin revokes them', async () => {
    const { client } = await services.oauth.clients.register(admin, { name: 'machine', allowedAgents: ['*'], permissions: ['list'] });
    const { access_token } = await services.oauth.tokens.issue(client);
    const app = await connected();
    expect(await (await revoke({ client_id: app.clientId, token: access_token })).json()).toMatchObject({ error: 'invalid_request', error_description: 'the token was not issued to this client' });
    expect((await revoke({ client_id: client.clientId, token: access_token })).status).toBe(401);
    expect((await services.oauth.tokens.verify(access_token)).clientId).toBe(client.clientId);
  });
});
