import { DomainError } from '../../errors/index.ts';
import { json, readBodyLimited } from '../../http/index.ts';

/** The form bodies of the token and revocation endpoints: small, and never more. */
const MAX_FORM_BODY = 8 * 1024;

/**
 * The OAuth endpoints use no cookie and are called by browser-based MCP clients from their own
 * origin: any origin may read their answers.
 */
export const OAUTH_CORS_HEADERS: Readonly<Record<string, string>> = { 'access-control-allow-origin': '*' };

/** The answer to a CORS preflight of an OAuth endpoint. */
export function oauthPreflight(methods: string): Response {
  return new Response(null, { status: 204, headers: { ...OAUTH_CORS_HEADERS, 'access-control-allow-methods': methods, 'access-control-allow-headers': 'authorization, content-type, mcp-protocol-version', 'access-control-max-age': '600' } });
}

/** RFC 6749 §5.2 error response. */
export function oauthError(status: number, error: string, description: string, headers: Record<string, string> = {}): Response {
  return json({ error, error_description: description }, { status, headers: { pragma: 'no-cache', 'cache-control': 'no-store', ...OAUTH_CORS_HEADERS, ...headers } });
}

/** The client's HTTP Basic credentials (RFC 6749 §2.3.1), null when it sent none. */
export function basicCredentials(request: Request): { clientId: string; clientSecret: string } | null | 'malformed' {
  const header = request.headers.get('authorization');
  if (!header || !/^Basic /i.test(header)) return null;
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return 'malformed';
  // RFC 6749 §2.3.1: both parts are form-urlencoded before base64.
  try {
    return { clientId: decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' ')), clientSecret: decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' ')) };
  } catch {
    return 'malformed';
  }
}

/** The request's `application/x-www-form-urlencoded` body, or the error response refusing it. */
export async function readForm(request: Request): Promise<URLSearchParams | Response> {
  if (!/^application\/x-www-form-urlencoded\b/i.test(request.headers.get('content-type') ?? '')) {
    return oauthError(400, 'invalid_request', 'the body must be application/x-www-form-urlencoded');
  }
  try {
    return new URLSearchParams(await readBodyLimited(request, MAX_FORM_BODY));
  } catch (error) {
    if (error instanceof DomainError && error.code === 'PAYLOAD_TOO_LARGE') return oauthError(413, 'invalid_request', error.message);
    throw error;
  }
}
