import { describe, expect, it } from 'vitest';
import { adminSecurityHeaders, contentSecurityPolicy, isCrossSiteRequest, trustedOrigins, withSeamSecurityHeaders } from './http-security.server.ts';

const trusted = trustedOrigins('https://agents.example.com');
const host = '127.0.0.1:3000';

describe('isCrossSiteRequest (issue 11, item 7)', () => {
  it.each([
    ['POST', { host, 'sec-fetch-site': 'cross-site' }],
    ['POST', { host, 'sec-fetch-site': 'same-site' }],
    ['DELETE', { host, 'sec-fetch-site': 'cross-site', origin: `http://${host}` }],
    ['POST', { host, origin: 'https://evil.example' }],
    ['POST', { host, origin: 'null' }],
    ['PUT', { host, origin: 'http://127.0.0.1:3001' }],
    ['POST', { origin: 'http://127.0.0.1:3000' }],
  ])('refuses %s %j', (method, headers) => {
    expect(isCrossSiteRequest(method, headers, trusted)).toBe(true);
  });

  it.each([
    ['GET', { host, 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' }],
    ['HEAD', { host, origin: 'https://evil.example' }],
    ['POST', { host, 'sec-fetch-site': 'same-origin' }],
    ['POST', { host, 'sec-fetch-site': 'none' }],
    ['POST', { host, origin: `http://${host}` }],
    ['POST', { host: 'Admin.Example.com', origin: 'https://admin.example.com' }],
    ['POST', { host: 'internal:8080', origin: 'https://agents.example.com' }],
    ['POST', { host }],
  ])('lets %s %j through', (method, headers) => {
    expect(isCrossSiteRequest(method, headers, trusted)).toBe(false);
  });
});

describe('security headers (issue 11, item 7)', () => {
  it('locks admin pages to nonce-bearing scripts and forbids framing', () => {
    const headers = adminSecurityHeaders({ nonce: 'abc123' });
    expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(headers['content-security-policy']).toContain("script-src 'self' 'nonce-abc123'");
    expect(headers['content-security-policy']).not.toContain('unsafe-inline');
    // same-origin, not no-referrer: forms posted without JavaScript must carry their real Origin.
    expect(headers).toMatchObject({ 'x-content-type-options': 'nosniff', 'referrer-policy': 'same-origin', 'x-frame-options': 'DENY' });
  });

  it('relaxes scripts, styles and websockets for Vite dev only, keeping frame-ancestors', () => {
    const csp = contentSecurityPolicy({ dev: true });
    expect(csp).toContain("'unsafe-inline'");
    expect(csp).toContain('ws:');
    expect(csp).toContain("frame-ancestors 'none'");
  });

  it('adds nosniff and Referrer-Policy to seam answers, keeping their CORS, even when the headers are immutable', () => {
    const mutable = withSeamSecurityHeaders(new Response('x', { headers: { 'access-control-allow-origin': '*', 'content-type': 'application/javascript' } }));
    expect(mutable.headers.get('access-control-allow-origin')).toBe('*');
    expect(mutable.headers.get('x-content-type-options')).toBe('nosniff');
    const immutable = withSeamSecurityHeaders(Response.redirect('http://127.0.0.1:3000/elsewhere', 302));
    expect(immutable.status).toBe(302);
    expect(immutable.headers.get('location')).toBe('http://127.0.0.1:3000/elsewhere');
    expect(immutable.headers.get('referrer-policy')).toBe('no-referrer');
    expect(immutable.headers.has('content-security-policy')).toBe(false);
  });
});
