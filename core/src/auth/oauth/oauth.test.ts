import { generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { afterEach, describe, expect, it, beforeAll, vi } from 'vitest';
import { testServices, useTestDatabase } from '../../testing/index.ts';
import type { Services } from '../../index.ts';

const t = useTestDatabase();
let services: Services;
const admin = { type: 'ui', id: 'admin', email: 'a@x.test', role: 'admin' } as const;
const origin = 'http://127.0.0.1:3999';

beforeAll(() => {
  services = testServices(t.db);
});

function tokenRequest(body: Record<string, string>, basic?: [string, string]) {
  return new Request(`${origin}/api/oauth/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(basic ? { authorization: `Basic ${Buffer.from(`${encodeURIComponent(basic[0])}:${encodeURIComponent(basic[1])}`).toString('base64')}` } : {}),
    },
    body: new URLSearchParams(body),
  });
}

async function register(permissions: ('list' | 'read' | 'execute')[] = ['list', 'read', 'execute']) {
  return services.oauth.clients.register(admin, { name: 'peer', allowedAgents: ['*'], permissions });
}

describe('OAuth token endpoint', () => {
  it('issues an ES256 JWT for client_secret_basic and client_secret_post, verified back to an a2a actor', async () => {
    const { client, clientSecret } = await register();
    for (const request of [tokenRequest({ grant_type: 'client_credentials' }, [client.clientId, clientSecret]), tokenRequest({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: clientSecret })]) {
      const response = await services.handlers.oauthToken(request);
      expect(response.status).toBe(200);
      expect(response.headers.get('cache-control')).toBe('no-store');
      const body = (await response.json()) as { access_token: string; token_type: string; expires_in: number };
      expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 600 });
      const header = JSON.parse(Buffer.from(body.access_token.split('.')[0]!, 'base64url').toString()) as Record<string, string>;
      expect(header).toMatchObject({ alg: 'ES256', typ: 'at+jwt', kid: expect.any(String) });
      const actor = await services.oauth.tokens.verify(body.access_token);
      expect(actor).toMatchObject({ type: 'a2a', clientId: client.clientId, grants: { allowedAgents: ['*'], permissions: ['list', 'read', 'execute'] } });
    }
    const jwks = (await (await services.handlers.jwks(new Request(`${origin}/.well-known/jwks.json`))).json()) as { keys: { kid: string; d?: string }[] };
    expect(jwks.keys.length).toBeGreaterThan(0);
    expect(jwks.keys.every((k) => k.d === undefined)).toBe(true);
  });

  it('refuses a wrong secret, two auth methods, another grant type and bodies that are not forms', async () => {
    const { client, clientSecret } = await register();
    const wrong = await services.handlers.oauthToken(tokenRequest({ grant_type: 'client_credentials' }, [client.clientId, 'svs_wrong']));
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ error: 'invalid_client' });
    const both = await services.handlers.oauthToken(tokenRequest({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: clientSecret }, [client.clientId, clientSecret]));
    expect(both.status).toBe(400);
    const grant = await services.handlers.oauthToken(tokenRequest({ grant_type: 'password' }, [client.clientId, clientSecret]));
    expect(await grant.json()).toMatchObject({ error: 'unsupported_grant_type' });
    const jsonBody = await services.handlers.oauthToken(new Request(`${origin}/api/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }));
    expect(jsonBody.status).toBe(400);
    const stored = await t.db.models.OauthClient.findOne({ clientId: client.clientId }).lean();
    expect(JSON.stringify(stored)).not.toContain(clientSecret);
  });

  it('rate-limits token requests per client', async () => {
    const { client, clientSecret } = await register();
    const statuses: number[] = [];
    for (let i = 0; i < 32; i++) statuses.push((await services.handlers.oauthToken(tokenRequest({ grant_type: 'client_credentials' }, [client.clientId, clientSecret]))).status);
    expect(statuses.slice(0, 30).every((s) => s === 200)).toBe(true);
    expect(statuses.slice(30)).toEqual([429, 429]);
  });

  it('rotation replaces the secret; revocation rejects the client and its live tokens', async () => {
    const { client, clientSecret } = await register();
    const token = (await services.oauth.tokens.issue(client)).access_token;
    const { clientSecret: rotated } = await services.oauth.clients.rotateSecret(admin, client.clientId);
    expect(await services.oauth.clients.authenticate(client.clientId, clientSecret)).toBeNull();
    expect(await services.oauth.clients.authenticate(client.clientId, rotated)).not.toBeNull();
    await services.oauth.clients.revoke(admin, client.clientId);
    await expect(services.oauth.tokens.verify(token)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    expect(await services.oauth.clients.authenticate(client.clientId, rotated)).toBeNull();
  });

  it('refuses to rotate the secret of a revoked client, and leaves the stored secret as it was', async () => {
    const { client } = await register();
    await services.oauth.clients.revoke(admin, client.clientId);
    const before = await t.db.models.OauthClient.findOne({ clientId: client.clientId }).lean();
    await expect(services.oauth.clients.rotateSecret(admin, client.clientId)).rejects.toMatchObject({ code: 'CONFLICT', message: expect.stringContaining('revoked') });
    const after = await t.db.models.OauthClient.findOne({ clientId: client.clientId }).lean();
    expect(after?.secretHash).toBe(before?.secretHash);
  });

  it('a revocation made by another process applies within a second (client state is reused for at most that long)', async () => {
    const { client } = await register();
    const token = (await services.oauth.tokens.issue(client)).access_token;
    const other = testServices(t.db);
    await other.oauth.tokens.verify(token);
    await services.oauth.clients.revoke(admin, client.clientId);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await expect(other.oauth.tokens.verify(token)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
  });

  it('narrows a token to a requested scope, and refuses unknown or ungranted scopes with invalid_scope', async () => {
    const { client, clientSecret } = await register(['list', 'read']);
    const narrow = await services.handlers.oauthToken(tokenRequest({ grant_type: 'client_credentials', scope: 'read' }, [client.clientId, clientSecret]));
    const body = (await narrow.json()) as { access_token: string; scope: string };
    expect(body.scope).toBe('read');
    expect((await services.oauth.tokens.verify(body.access_token)).grants.permissions).toEqual(['read']);
    const whole = (await (await services.handlers.oauthToken(tokenRequest({ grant_type: 'client_credentials' }, [client.clientId, clientSecret]))).json()) as { access_token: string; scope: string };
    expect(whole.scope).toBe('list read');
    for (const scope of ['admin', 'read write', 'execute']) {
      const refused = await services.handlers.oauthToken(tokenRequest({ grant_type: 'client_credentials', scope }, [client.clientId, clientSecret]));
      expect(refused.status).toBe(400);
      expect(await refused.json()).toMatchObject({ error: 'invalid_scope' });
    }
  });

  it('publishes RFC 8414 metadata naming the token endpoint and the JWKS', async () => {
    const response = await services.handlers.oauthMetadata(new Request(`${origin}/.well-known/oauth-authorization-server`));
    expect(await response.json()).toEqual({
      issuer: origin,
      token_endpoint: `${origin}/api/oauth/token`,
      jwks_uri: `${origin}/.well-known/jwks.json`,
      authorization_endpoint: `${origin}/oauth/authorize`,
      registration_endpoint: `${origin}/api/oauth/register`,
      revocation_endpoint: `${origin}/api/oauth/revoke`,
      revocation_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
      grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
      token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
      scopes_supported: ['list', 'read', 'execute', 'mcp'],
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      code_challenge_methods_supported: ['S256'],
      client_id_metadata_document_supported: true,
      authorization_response_iss_parameter_supported: true,
    });
  });

  it('only admins manage clients', async () => {
    await expect(services.oauth.clients.register({ type: 'ui', id: 'm', email: 'm@x.test', role: 'member' }, { name: 'x', allowedAgents: [], permissions: [] })).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });

  it('names every allowed agent that is not a package name, not only the first', async () => {
    await expect(services.oauth.clients.register(admin, { name: 'x', allowedAgents: ['editorial', '@tour/summarizer', 'review'], permissions: [] })).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      message: 'allowed agents must be @scope/name or *, not "editorial", "review"',
    });
  });
});

describe('JWT verification rejects', () => {
  const sign = async (claims: Record<string, unknown>, options: { key?: CryptoKey; kid?: string; exp?: number | string; aud?: string; iss?: string } = {}) => {
    const { client } = await register();
    const current = await services.oauth.keys.current();
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ client_id: client.clientId, ...claims })
      .setProtectedHeader({ alg: 'ES256', kid: options.kid ?? current.kid, typ: 'at+jwt' })
      .setIssuer(options.iss ?? origin)
      .setAudience(options.aud ?? origin)
      .setSubject(client.clientId)
      .setIssuedAt(now - 700)
      .setExpirationTime(options.exp ?? now + 300)
      .sign(options.key ?? current.privateKey);
  };

  afterEach(() => {
    vi.useRealTimers();
  });

  it('a token verified once is still refused after it expires, after its client is revoked, and when altered', async () => {
    const now = Math.floor(Date.now() / 1000);
    const token = await sign({}, { exp: now + 30 });
    await expect(services.oauth.tokens.verify(token)).resolves.toMatchObject({ type: 'a2a' });
    await expect(services.oauth.tokens.verify(token)).resolves.toMatchObject({ type: 'a2a' });
    // An altered signature or payload is a different token: checked from scratch, refused.
    const [head, payload, signature] = token.split('.');
    const flipped = `${signature!.slice(0, -2)}${signature!.endsWith('AA') ? 'BB' : 'AA'}`;
    await expect(services.oauth.tokens.verify(`${head}.${payload}.${flipped}`)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    const widened = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), scope: 'admin' })).toString('base64url');
    await expect(services.oauth.tokens.verify(`${head}.${widened}.${signature}`)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    // Past its expiry (and the 5 s clock tolerance) the remembered check no longer counts.
    vi.useFakeTimers({ toFake: ['Date'], now: (now + 40) * 1000 });
    await expect(services.oauth.tokens.verify(token)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    vi.useRealTimers();

    const { client } = await register();
    const live = (await services.oauth.tokens.issue(client)).access_token;
    await expect(services.oauth.tokens.verify(live)).resolves.toMatchObject({ clientId: client.clientId });
    await services.oauth.clients.revoke(admin, client.clientId);
    await expect(services.oauth.tokens.verify(live)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
  });

  it('control: a token from the same helper with nothing changed verifies', async () => {
    await expect(services.oauth.tokens.verify(await sign({}))).resolves.toMatchObject({ type: 'a2a' });
  });

  it.each([
    ['expired', () => sign({}, { exp: Math.floor(Date.now() / 1000) - 60 })],
    ['wrong audience', () => sign({}, { aud: 'https://other.example.com' })],
    ['wrong issuer', () => sign({}, { iss: 'https://other.example.com' })],
    ['signed by another key', async () => sign({}, { key: (await generateKeyPair('ES256')).privateKey })],
    [
      'alg none',
      async () => {
        const good = await sign({});
        const [, payload] = good.split('.');
        return `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'at+jwt' })).toString('base64url')}.${payload}.`;
      },
    ],
    [
      'HS256 with the public key as secret',
      async () => {
        const good = await sign({});
        const [, payload] = good.split('.');
        const { createHmac } = await import('node:crypto');
        const head = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'at+jwt', kid: (await services.oauth.keys.current()).kid })).toString('base64url');
        const jwks = JSON.stringify((await services.oauth.keys.jwks()).keys[0]);
        return `${head}.${payload}.${createHmac('sha256', jwks).update(`${head}.${payload}`).digest('base64url')}`;
      },
    ],
  ])('%s', async (_name, make) => {
    await expect(services.oauth.tokens.verify(await make())).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
  });
});
