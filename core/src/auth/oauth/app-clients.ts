import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { constantTimeEqual, sha256Url } from '../../crypto/index.ts';
import type { Models } from '../../db/index.ts';
import { DomainError } from '../../errors/index.ts';
import type { OutboundHttp } from '../../http/index.ts';

/**
 * The clients of the authorization code flow: apps a person connects (hosted MCP clients, IDEs),
 * as opposed to the machine clients an admin registers with a secret (clients.ts). Two kinds:
 * a client whose id is the URL of its metadata document (the current MCP revision), fetched
 * through the outbound policy; and one registered by RFC 7591 dynamic registration.
 */
export interface AppClient {
  clientId: string;
  name: string;
  kind: 'metadata-document' | 'registered';
  redirectUris: string[];
  authMethod: 'none' | 'client_secret_basic' | 'client_secret_post';
  clientUri: string | null;
}

export const APP_AUTH_METHODS = ['none', 'client_secret_basic', 'client_secret_post'] as const;
/** A metadata document is a few hundred bytes; the MCP specification suggests servers cap it at 5 KB. */
export const MAX_METADATA_DOCUMENT_BYTES = 5 * 1024;
const MAX_CLIENT_ID_URL = 512;
const DOCUMENT_TTL_MS = 5 * 60_000;
const FAILURE_TTL_MS = 30_000;
const REGISTRATION_TTL_MS = 24 * 60 * 60_000;

const hashSecret = sha256Url;

/** The host names a redirect over plain http may use (RFC 8252 §7.3: the client's own machine). */
export function isLoopbackHost(hostname: string): boolean {
  return hostname === '127.0.0.1' || hostname === 'localhost' || hostname === '[::1]';
}

/** A redirect URI a client may register: https anywhere, http only to loopback (RFC 8252 §7.3), a private scheme for native apps; never a fragment. */
export function redirectUriProblem(value: string): string | null {
  if (value.length > 2000) return 'is longer than 2000 characters';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'is not an absolute URL';
  }
  if (url.hash) return 'has a fragment';
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:') return isLoopbackHost(url.hostname) ? null : 'uses http to a host that is not loopback';
  if (/^(javascript|data|file|vbscript):$/.test(url.protocol)) return `uses the ${url.protocol} scheme`;
  // A private-use scheme (RFC 8252 §7.1) must look like a reversed domain name.
  return /^[a-z][a-z0-9+.-]*\.[a-z0-9+.-]+:$/.test(url.protocol) ? null : 'uses a scheme that is neither https, loopback http nor a reversed domain name';
}

const redirectUris = z
  .array(z.string())
  .min(1, 'redirect_uris must name at least one URI')
  .max(10, 'at most 10 redirect_uris')
  .superRefine((uris, context) => {
    for (const uri of uris) {
      const problem = redirectUriProblem(uri);
      if (problem) context.addIssue({ code: 'custom', message: `redirect_uri ${JSON.stringify(uri.slice(0, 100))} ${problem}` });
    }
  });
const clientName = z.string().trim().min(1).max(100);
const clientUri = z.url({ protocol: /^https?$/ }).max(2000);

/** RFC 7591 §2 client metadata, as far as this server uses it; other fields are ignored. */
const registrationRequest = z.object({
  redirect_uris: redirectUris,
  client_name: clientName.optional(),
  client_uri: clientUri.optional(),
  token_endpoint_auth_method: z.enum(APP_AUTH_METHODS, { message: `token_endpoint_auth_method must be one of ${APP_AUTH_METHODS.join(', ')}` }).default('none'),
  grant_types: z.array(z.string()).optional(),
  response_types: z.array(z.string()).optional(),
});

/** The MCP client ID metadata document: the client id is the document's own URL. */
const metadataDocument = z.object({
  client_id: z.string(),
  client_name: clientName.optional(),
  client_uri: clientUri.optional(),
  redirect_uris: redirectUris,
  token_endpoint_auth_method: z.literal('none', { message: 'only public clients (token_endpoint_auth_method "none") may use a metadata document here' }).optional(),
});

const issuesOf = (error: z.ZodError) => error.issues.map((issue) => (issue.path.length ? `${issue.path.join('.')}: ${issue.message}` : issue.message)).join('; ');

/** True for a client id that is a metadata document's URL (https, with a path). */
export function isMetadataDocumentUrl(clientId: string): boolean {
  if (!clientId.startsWith('https://') || clientId.length > MAX_CLIENT_ID_URL) return false;
  try {
    const url = new URL(clientId);
    return url.pathname !== '/' && !url.hash && !url.username && !url.password;
  } catch {
    return false;
  }
}

export function createAppClients(deps: { models: Models; http: OutboundHttp }) {
  const { OauthRegisteredClient } = deps.models;
  const documents = new Map<string, { until: number; client: Promise<AppClient> }>();

  async function fetchDocument(url: string): Promise<AppClient> {
    let response: Response;
    try {
      response = await deps.http.fetch(url, { headers: { accept: 'application/json' }, timeoutMs: 5_000, maxBytes: MAX_METADATA_DOCUMENT_BYTES });
    } catch (error) {
      throw new DomainError('VALIDATION_FAILED', `The client's metadata document could not be fetched: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      throw new DomainError('VALIDATION_FAILED', `The client's metadata document answered HTTP ${response.status}`);
    }
    let body: unknown;
    try {
      body = await deps.http.json(response, MAX_METADATA_DOCUMENT_BYTES, 'client metadata document');
    } catch (error) {
      throw new DomainError('VALIDATION_FAILED', `The client's metadata document is unusable: ${error instanceof Error ? error.message : String(error)}`);
    }
    const parsed = metadataDocument.safeParse(body);
    if (!parsed.success) throw new DomainError('VALIDATION_FAILED', `The client's metadata document is invalid: ${issuesOf(parsed.error)}`);
    if (parsed.data.client_id !== url) throw new DomainError('VALIDATION_FAILED', 'The client metadata document names another client_id than its own URL');
    return { clientId: url, name: parsed.data.client_name ?? new URL(url).host, kind: 'metadata-document', redirectUris: parsed.data.redirect_uris, authMethod: 'none', clientUri: parsed.data.client_uri ?? null };
  }

  /** A metadata document, fetched at most once per 5 minutes per URL (a failure is kept 30 s). */
  function metadataClient(url: string): Promise<AppClient> {
    const now = Date.now();
    const cached = documents.get(url);
    if (cached && cached.until > now) return cached.client;
    const client = fetchDocument(url);
    if (documents.size >= 1_000) documents.clear();
    const entry = { until: now + DOCUMENT_TTL_MS, client };
    documents.set(url, entry);
    client.catch(() => (entry.until = Date.now() + FAILURE_TTL_MS));
    return client;
  }

  async function registered(clientId: string): Promise<AppClient | null> {
    const row = clientId.length <= 64 ? await OauthRegisteredClient.findById(clientId).lean() : null;
    if (!row || (row.expiresAt && row.expiresAt.getTime() <= Date.now())) return null;
    return { clientId: row._id, name: row.name, kind: 'registered', redirectUris: row.redirectUris, authMethod: row.authMethod as AppClient['authMethod'], clientUri: row.clientUri ?? null };
  }

  return {
    /** The client with this id (a metadata document is fetched, or read from the cache), or VALIDATION_FAILED naming why there is none. */
    async find(clientId: string): Promise<AppClient> {
      if (isMetadataDocumentUrl(clientId)) return metadataClient(clientId);
      const client = await registered(clientId);
      if (!client) throw new DomainError('VALIDATION_FAILED', 'Unknown client_id: register the client first, or use the URL of its metadata document');
      return client;
    },

    /** A client registered here (RFC 7591) and not lapsed, or null; never fetches anything. */
    registered,

    /** RFC 7591 registration: the stored client and, for a confidential one, its secret (shown once). */
    async register(body: unknown): Promise<{ client: AppClient; clientSecret: string | null; issuedAt: number }> {
      const parsed = registrationRequest.safeParse(body);
      if (!parsed.success) throw new DomainError('VALIDATION_FAILED', issuesOf(parsed.error));
      const request = parsed.data;
      if (request.grant_types?.some((grant) => grant !== 'authorization_code' && grant !== 'refresh_token')) throw new DomainError('VALIDATION_FAILED', 'grant_types may hold authorization_code and refresh_token only');
      if (request.response_types?.some((type) => type !== 'code')) throw new DomainError('VALIDATION_FAILED', 'response_types may hold code only');
      const clientId = `mcp_${randomBytes(16).toString('base64url')}`;
      const clientSecret = request.token_endpoint_auth_method === 'none' ? null : `svs_${randomBytes(32).toString('base64url')}`;
      const name = request.client_name ?? 'Unnamed MCP client';
      await OauthRegisteredClient.create({
        _id: clientId,
        name,
        redirectUris: request.redirect_uris,
        authMethod: request.token_endpoint_auth_method,
        secretHash: clientSecret ? hashSecret(clientSecret) : null,
        clientUri: request.client_uri ?? null,
        expiresAt: new Date(Date.now() + REGISTRATION_TTL_MS),
      });
      const client: AppClient = { clientId, name, kind: 'registered', redirectUris: request.redirect_uris, authMethod: request.token_endpoint_auth_method, clientUri: request.client_uri ?? null };
      return { client, clientSecret, issuedAt: Math.floor(Date.now() / 1000) };
    },

    /** A confidential registered client's secret check (constant time); a public client has none to check. */
    async secretMatches(clientId: string, secret: string): Promise<boolean> {
      const row = clientId.length <= 64 ? await OauthRegisteredClient.findById(clientId, { secretHash: 1 }).lean() : null;
      return constantTimeEqual(hashSecret(secret), row?.secretHash ?? hashSecret(randomBytes(32).toString('base64url'))) && !!row?.secretHash;
    },

    /** A registered client that got a grant lives as long as its grants: it no longer lapses after a day. */
    async keep(clientId: string): Promise<void> {
      if (!isMetadataDocumentUrl(clientId)) await OauthRegisteredClient.updateOne({ _id: clientId }, { $set: { expiresAt: null } });
    },
  };
}

export type AppClients = ReturnType<typeof createAppClients>;
