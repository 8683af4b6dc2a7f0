import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

/**
 * An MCP client app's side of the OAuth flow, as a desktop or hosted client keeps it: what it
 * registered, its tokens and PKCE verifier, and the authorization URL it would open in a browser
 * (the test opens it in Chromium). With `clientMetadataUrl` it names itself by its metadata
 * document; without, it registers (RFC 7591).
 */
export class BrowserClientProvider implements OAuthClientProvider {
  information: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier: string | undefined;
  authorizationUrl: URL | undefined;

  constructor(
    readonly redirectUrl: string,
    readonly clientMetadataUrl?: string,
    readonly name = 'Hosted test client',
  ) {}

  get clientMetadata(): OAuthClientMetadata {
    return { client_name: this.name, redirect_uris: [this.redirectUrl], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' };
  }
  clientInformation() {
    return this.information;
  }
  saveClientInformation(information: OAuthClientInformationMixed) {
    this.information = information;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  /** What the SDK drops when the server refuses it (a revoked grant's refresh token: the tokens). */
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery') {
    if (scope === 'all' || scope === 'client') this.information = undefined;
    if (scope === 'all' || scope === 'tokens') this.saved = undefined;
    if (scope === 'all' || scope === 'verifier') this.verifier = undefined;
  }
  codeVerifier() {
    if (!this.verifier) throw new Error('no PKCE verifier saved');
    return this.verifier;
  }
}

/** The client's redirect URI on loopback: resolves each authorization response that reaches it. */
export async function startCallbackServer(): Promise<{ url: string; next(): Promise<URLSearchParams>; close(): Promise<void> }> {
  let waiting: ((params: URLSearchParams) => void) | undefined;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    res.writeHead(200, { 'content-type': 'text/plain' }).end('You can close this window.');
    if (url.pathname === '/callback') waiting?.(url.searchParams);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`,
    next: () => new Promise((resolve) => (waiting = resolve)),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * A self-signed certificate for 127.0.0.1 (openssl), for an HTTPS origin a service process trusts
 * through NODE_EXTRA_CA_CERTS: metadata documents must be served over https.
 */
export function selfSignedCertificate(): { certPath: string; keyPath: string; cert: string; key: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tls-'));
  const certPath = path.join(dir, 'cert.pem');
  const keyPath = path.join(dir, 'key.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', keyPath, '-out', certPath, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  return { certPath, keyPath, cert: readFileSync(certPath, 'utf8'), key: readFileSync(keyPath, 'utf8') };
}

/** Serves one JSON document over HTTPS at `/<name>`; counts how often it was fetched. */
export async function serveDocumentOverHttps(tls: { cert: string; key: string }, name: string, document: (url: string) => unknown): Promise<{ url: string; fetches(): number; close(): Promise<void> }> {
  let fetches = 0;
  let url = '';
  const server = https.createServer({ cert: tls.cert, key: tls.key }, (req, res) => {
    if (req.url !== `/${name}`) return void res.writeHead(404).end();
    fetches++;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(document(url)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/${name}`;
  return { url, fetches: () => fetches, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
