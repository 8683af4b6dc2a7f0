import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { withHeaders } from '@service/core/http';

/**
 * The response headers and the cross-site check of every request this server answers, in one
 * place: server.ts applies them to the admin UI (everything Express serves), seam-routes.ts to
 * the machine-facing routes. Node-level, so the check runs before Express, Vite or Remix read a
 * byte of the body.
 */

/** Every response, machine-facing ones included. Seam routes keep their own CORS headers on top. */
export const BASE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

/** A fresh nonce per response: the only way an inline script runs on an admin page. */
export function cspNonce(): string {
  return randomBytes(18).toString('base64');
}

/**
 * The admin UI's policy. Built: scripts only from this origin or inline with the response's
 * nonce (Remix's hydration context, route modules import and streamed data, React's own
 * streaming scripts all carry it: entry.server.tsx, root.tsx), styles from this origin or with the
 * nonce (the <style> Radix dialogs inject: root.tsx), no framing.
 * Vite dev (`server.ts --dev`) injects inline scripts and styles of its own without a nonce
 * and talks to its HMR websocket, so there scripts, styles and `ws:` are relaxed; framing,
 * plugins, `<base>` and form targets stay locked.
 */
export function contentSecurityPolicy(options: { nonce?: string; dev?: boolean }): string {
  const scripts = options.dev ? "'self' 'unsafe-inline' 'unsafe-eval'" : `'self'${options.nonce ? ` 'nonce-${options.nonce}'` : ''}`;
  return [
    "default-src 'self'",
    `script-src ${scripts}`,
    `style-src 'self'${options.dev ? " 'unsafe-inline'" : options.nonce ? ` 'nonce-${options.nonce}'` : ''}`,
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src 'self'${options.dev ? ' ws: wss:' : ''}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** Every admin UI response: pages, their data requests, tRPC, static assets. */
export function adminSecurityHeaders(options: { nonce?: string; dev?: boolean }): Record<string, string> {
  return {
    ...BASE_SECURITY_HEADERS,
    // Not no-referrer: under it a browser sends `Origin: null` with a form POST navigation, and
    // Remix aborts any action whose Origin is not its host, so no form worked without JavaScript.
    // same-origin still sends nothing to other sites.
    'referrer-policy': 'same-origin',
    'content-security-policy': contentSecurityPolicy(options),
    // For browsers that predate frame-ancestors.
    'x-frame-options': 'DENY',
  };
}

/**
 * A machine-facing answer with the base headers added (its own CORS and content type stay).
 * A Response whose headers are immutable (one passed on from fetch) is copied first.
 */
export function withSeamSecurityHeaders(response: Response): Response {
  return withHeaders(response, BASE_SECURITY_HEADERS, { keep: true });
}

const SAFE_METHODS = new Set(['GET', 'HEAD']);

/**
 * True when a browser sent this state-changing request from another site: the admin UI's
 * cookie would authenticate it, so it is refused (403) before anything reads it.
 *
 * `Sec-Fetch-Site` decides when present: `same-origin` (the UI itself) and `none` (typed,
 * bookmarked) pass. Without it, an `Origin` must be this server's own (the Host it was asked
 * at) or the configured base URL's. With neither header the request did not come from a
 * browser page (curl, scripts): no ambient cookie to abuse, so it passes.
 */
export function isCrossSiteRequest(method: string | undefined, headers: IncomingHttpHeaders, trustedOrigins: readonly string[]): boolean {
  if (SAFE_METHODS.has((method ?? 'GET').toUpperCase())) return false;
  const site = headers['sec-fetch-site'];
  if (typeof site === 'string') return site !== 'same-origin' && site !== 'none';
  const origin = headers.origin;
  if (origin === undefined) return false;
  const normalized = origin.trim().toLowerCase();
  if (trustedOrigins.includes(normalized)) return false;
  const host = headers.host?.trim().toLowerCase();
  return !host || (normalized !== `http://${host}` && normalized !== `https://${host}`);
}

/** The origins always trusted besides the request's own: the configured base URL's. */
export function trustedOrigins(baseUrl: string): string[] {
  return [new URL(baseUrl).origin.toLowerCase()];
}
