import { createHash, randomBytes } from 'node:crypto';
import type { AppLoadContext } from '@remix-run/node';
import type { UiActor } from '@service/core/auth';
import { testServices, useTestDatabase } from '@service/core/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { sessionCookie } from '~/auth/session-cookie.server.ts';
import { safeRedirect } from '~/auth/session.server.ts';
import { action as connectionsAction } from '~/routes/administration.mcp.connections.tsx';
import { action, loader } from '~/routes/oauth.authorize.tsx';
import { createCaller } from '~/trpc/router.server.ts';

const t = useTestDatabase();
let context: AppLoadContext;
let admin: UiActor;
let member: UiActor;
let adminCookie: string;
let clientId: string;
const REDIRECT_URI = 'http://127.0.0.1:4000/callback';
const ORIGIN = 'http://127.0.0.1:3999';

beforeAll(async () => {
  context = { services: testServices(t.db) };
  const { services } = context;
  admin = await services.users.create({ email: 'consent-admin@example.com', password: 'correct horse battery', role: 'admin' });
  member = await services.users.create({ email: 'consent-member@example.com', password: 'correct horse battery', role: 'member' });
  adminCookie = await cookieFor(admin);
  clientId = (await services.oauth.appClients.register({ redirect_uris: [REDIRECT_URI], client_name: 'Desk App' })).client.clientId;
});

async function cookieFor(user: UiActor) {
  const { sessionId } = await context.services.sessions.create(user);
  return (await sessionCookie(context.services.config).serialize(sessionId)).split(';')[0]!;
}

/** A valid authorization request's parameters, and the PKCE verifier behind its challenge. */
function authorizationRequest() {
  const verifier = randomBytes(32).toString('base64url');
  const params = new URLSearchParams({ client_id: clientId, redirect_uri: REDIRECT_URI, response_type: 'code', code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256', state: 'st-1' });
  return { params, verifier };
}

function consentPost(params: URLSearchParams, fields: [string, string][], cookie = adminCookie) {
  const body = new URLSearchParams(params);
  for (const [name, value] of fields) body.append(name, value);
  return new Request(`${ORIGIN}/oauth/authorize`, { method: 'POST', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, body });
}

async function settle(work: Promise<unknown>): Promise<unknown> {
  return work.catch((thrown: unknown) => thrown);
}

/** Remix's single-fetch `data()` result. */
const asData = (result: unknown) => result as { data: { kind: string; message: string }; init: { status: number } };

describe('the authorization endpoint', () => {
  it('sends an anonymous visitor to sign-in and back to the whole request', async () => {
    const { params } = authorizationRequest();
    const answer = (await settle(loader({ request: new Request(`${ORIGIN}/oauth/authorize?${params}`), context, params: {} }))) as Response;
    expect(answer.status).toBe(302);
    const redirectTo = new URL(answer.headers.get('location')!, ORIGIN).searchParams.get('redirectTo');
    expect(safeRedirect(redirectTo)).toBe(`/oauth/authorize?${params}`);
  });

  it('shows an admin the consent page with the requested tools, and refuses an unknown client without a form', async () => {
    const { params } = authorizationRequest();
    params.set('scope', 'mcp mcp:service_extensions_search');
    const page = (await loader({ request: new Request(`${ORIGIN}/oauth/authorize?${params}`, { headers: { cookie: adminCookie } }), context, params: {} })) as { kind: string; requested: string[]; passedOn: { name: string }[] };
    expect(page).toMatchObject({ kind: 'consent', requested: ['service_extensions_search'] });
    expect(page.passedOn.map(({ name }) => name).sort()).toEqual(['client_id', 'code_challenge', 'code_challenge_method', 'redirect_uri', 'response_type', 'scope', 'state']);
    params.set('client_id', 'mcp_unknown');
    const refused = asData(await loader({ request: new Request(`${ORIGIN}/oauth/authorize?${params}`, { headers: { cookie: adminCookie } }), context, params: {} }));
    expect(refused.init.status).toBe(400);
    expect(refused.data.kind).toBe('refuse');
  });

  it('shows a request error with a link back to the app instead of sending a signed-in admin there (RFC 9700 §4.11.2)', async () => {
    const { params } = authorizationRequest();
    params.set('code_challenge_method', 'plain');
    const shown = asData(await loader({ request: new Request(`${ORIGIN}/oauth/authorize?${params}`, { headers: { cookie: adminCookie } }), context, params: {} })) as unknown as { data: { kind: string; location: string; host: string }; init: { status: number } };
    expect(shown.init.status).toBe(400);
    expect(shown.data).toMatchObject({ kind: 'send-back', host: '127.0.0.1:4000' });
    expect(new URL(shown.data.location).searchParams.get('error')).toBe('invalid_request');
    expect(new URL(shown.data.location).searchParams.get('state')).toBe('st-1');
  });

  it('refuses to grant a tool the server does not have, and issues no code', async () => {
    const { params } = authorizationRequest();
    const answer = asData(await action({ request: consentPost(params, [['intent', 'approve'], ['primitive', 'service_extensions_search'], ['primitive', 'no_such_tool']]), context, params: {} }));
    expect(answer.init.status).toBe(400);
    expect(answer.data.message).toContain('no_such_tool');
    expect(await t.db.models.OauthAuthorizationCode.countDocuments({ clientId })).toBe(0);
  });

  it('sends the client a code on Allow and access_denied on Deny', async () => {
    const { params } = authorizationRequest();
    const denied = (await action({ request: consentPost(params, [['intent', 'deny']]), context, params: {} })) as Response;
    expect(new URL(denied.headers.get('location')!).searchParams.get('error')).toBe('access_denied');
    const allowed = (await action({ request: consentPost(params, [['intent', 'approve'], ['primitive', 'service_extensions_search']]), context, params: {} })) as Response;
    const back = new URL(allowed.headers.get('location')!);
    expect(back.origin + back.pathname).toBe(REDIRECT_URI);
    expect(back.searchParams.get('state')).toBe('st-1');
    expect(back.searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('lets a non-admin neither consent nor list or revoke connections', async () => {
    const { params } = authorizationRequest();
    const memberCookie = await cookieFor(member);
    const consent = (await settle(action({ request: consentPost(params, [['intent', 'approve']], memberCookie), context, params: {} }))) as Response;
    expect(consent.status).toBe(403);
    const caller = createCaller({ services: context.services, actor: member });
    await expect(caller.mcp.connections.list()).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(caller.mcp.connections.revoke({ grantId: 'any' })).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(createCaller({ services: context.services, actor: null }).mcp.connections.revoke({ grantId: 'any' })).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
  });

  it('revokes a connection from its page, naming the app', async () => {
    const { params, verifier } = authorizationRequest();
    const allowed = (await action({ request: consentPost(params, [['intent', 'approve'], ['primitive', '*']]), context, params: {} })) as Response;
    const code = new URL(allowed.headers.get('location')!).searchParams.get('code')!;
    const { grant } = await context.services.oauth.consents.redeem({ code, clientId, redirectUri: REDIRECT_URI, verifier, resource: null });
    expect(grant.allowedPrimitives).toEqual(['*']);
    const body = new URLSearchParams({ intent: 'revoke', grantId: grant.grantId });
    const answer = await connectionsAction({ request: new Request(`${ORIGIN}/administration/mcp/connections`, { method: 'POST', headers: { cookie: adminCookie, 'content-type': 'application/x-www-form-urlencoded' }, body }), context, params: {} });
    expect(answer).toEqual({ notice: 'Revoked Desk App: its tokens stop working within a second.' });
    const [listed] = (await createCaller({ services: context.services, actor: admin }).mcp.connections.list()).filter((view) => view.grantId === grant.grantId);
    expect(listed).toMatchObject({ revoked: true, revokedReason: `revoked by ${admin.email}` });
  });
});
