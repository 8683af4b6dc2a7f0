import { createUserStore } from '@service/core/auth';
import { useTestDatabase } from '@service/core/testing';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, logCspViolations } from '../helpers/browser.ts';
import { rawRequest } from '../helpers/raw-http.ts';
import { signInCookie, startService, type RunningService } from '../helpers/service-process.ts';

/**
 * Issue 11, items 6, 7 and 8, on the wire: the real server (production build) and real HTTP.
 * Each client address is a loopback alias (127.0.0.x), so throttling one leaves the others be.
 * Issue 25: an account is never locked, only the addresses guessing at it.
 */
const t = useTestDatabase();
let service: RunningService;
let browser: Browser;
const PASSWORD = 'correct horse battery';

beforeAll(async () => {
  const users = createUserStore(t.db.models);
  await users.create({ email: 'ops@example.com', password: PASSWORD, role: 'admin' });
  await users.create({ email: 'target@example.com', password: PASSWORD, role: 'admin' });
  await users.create({ email: 'other@example.com', password: PASSWORD, role: 'admin' });
  await users.create({ email: 'besieged@example.com', password: PASSWORD, role: 'admin' });
  [service, browser] = await Promise.all([startService({ mongodbUri: t.uri }), launchChromium()]);
});

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

function signIn(email: string, password: string, options: { localAddress?: string; headers?: Record<string, string> } = {}) {
  return rawRequest(`${service.url}/sign-in`, {
    method: 'POST',
    headers: { ...FORM, ...options.headers },
    body: form({ email, password, redirectTo: '/administration' }),
    ...(options.localAddress ? { localAddress: options.localAddress } : {}),
  });
}

describe('cross-site requests (item 7)', () => {
  it('refuses a cross-site form post to sign-in (login CSRF) with 403 and sets no cookie', async () => {
    const attempts: Record<string, string>[] = [{ origin: 'https://evil.example' }, { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' }, { origin: 'null' }, { 'sec-fetch-site': 'same-site' }];
    for (const headers of attempts) {
      const response = await signIn('ops@example.com', PASSWORD, { headers });
      expect(response.status, JSON.stringify(headers)).toBe(403);
      expect(response.headers['set-cookie']).toBeUndefined();
    }
  });

  it('refuses a cross-site tRPC mutation carrying the admin cookie, before the procedure runs', async () => {
    const cookie = await signInCookie(service.url, 'ops@example.com', PASSWORD);
    const send = (headers: Record<string, string>) =>
      rawRequest(`${service.url}/api/trpc/a2a.clients.register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie, ...headers },
        body: JSON.stringify({ name: 'planted by another site', allowedAgents: ['*'], permissions: ['execute'] }),
      });
    const refused = await send({ 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' });
    expect(refused.status).toBe(403);
    expect(refused.body).toBe('Cross-site request refused\n');
    const list = await rawRequest(`${service.url}/api/trpc/a2a.clients.list`, { headers: { cookie } });
    expect(list.body).not.toContain('planted by another site');
    // The UI itself (same origin) still may.
    expect((await send({ 'sec-fetch-site': 'same-origin', origin: service.url })).status).toBe(200);
  });

  it('lets same-origin posts and non-browser clients (no Origin, no Sec-Fetch-Site) through', async () => {
    expect((await signIn('ops@example.com', PASSWORD, { headers: { origin: service.url } })).status).toBe(302);
    expect((await signIn('ops@example.com', PASSWORD, { headers: { 'sec-fetch-site': 'same-origin', origin: service.url } })).status).toBe(302);
    expect((await signIn('ops@example.com', PASSWORD)).status).toBe(302);
  });

  it('puts a nonce CSP with frame-ancestors none on admin pages, and the nonce on every inline script', async () => {
    const page = await rawRequest(`${service.url}/sign-in`);
    expect(page.status).toBe(200);
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce).toBeTruthy();
    expect(page.headers).toMatchObject({ 'x-content-type-options': 'nosniff', 'referrer-policy': 'same-origin', 'x-frame-options': 'DENY' });
    const scripts = [...page.body.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
    expect(scripts.length).toBeGreaterThan(0);
    for (const tag of scripts) if (!/\bsrc=/.test(tag)) expect(tag).toContain(`nonce="${nonce}"`);
    const again = await rawRequest(`${service.url}/sign-in`);
    expect(again.headers['content-security-policy']).not.toBe(csp);
  });

  it('gives machine-facing routes nosniff and Referrer-Policy but keeps their CORS and no frame policy', async () => {
    const health = await rawRequest(`${service.url}/healthz`);
    expect(health.headers).toMatchObject({ 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' });
    expect(health.headers['content-security-policy']).toBeUndefined();
    const bundle = await rawRequest(`${service.url}/api/cms-a-widget/bundle.js`, { headers: { origin: 'https://cms.example' } });
    expect(bundle.headers).toMatchObject({ 'access-control-allow-origin': '*', 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' });
    expect(bundle.headers['content-security-policy']).toBeUndefined();
  });

  it('still hydrates and navigates in a real browser under the policy, with no CSP violation', async () => {
    const page = await browser.newPage();
    const violations: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
    });
    await logCspViolations(page);
    const document = await page.goto(`${service.url}/sign-in`);
    expect(document?.headers()['content-security-policy']).toMatch(/script-src 'self' 'nonce-[^']+'/);
    await page.getByLabel('Email').fill('ops@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${service.url}/administration`);
    // A client-side navigation keeps the window: only hydrated JavaScript does that.
    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 42));
    await page.getByRole('navigation', { name: 'Administration' }).getByRole('link', { name: 'Audit log' }).click();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Audit log');
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(42);
    expect(violations).toEqual([]);
    await page.close();
  });

  it('cannot be framed (clickjacking): the browser refuses to render an admin page in a frame', async () => {
    const page = await browser.newPage();
    await page.setContent(`<iframe name="admin" src="${service.url}/sign-in"></iframe>`);
    // Chromium puts its error page in a frame it refused to render.
    await expect.poll(() => page.frame({ name: 'admin' })?.url(), { timeout: 15_000 }).toBe('chrome-error://chromewebdata/');
    const frame = page.frame({ name: 'admin' })!;
    expect(await frame.locator('h1', { hasText: 'Sign in' }).count()).toBe(0);
    await page.close();
  });
});

describe('auth before body, bounded bodies (item 6)', () => {
  it('answers an anonymous admin post without waiting for its (huge, unfinished) body', async () => {
    // The body is never finished: a server that waited for it would not answer at all.
    const response = await rawRequest(`${service.url}/administration/runs`, {
      method: 'POST',
      headers: { ...FORM, 'content-length': String(50 * 1024 * 1024) },
      body: 'agent=x&text=' + 'a'.repeat(1024),
      partialBody: true,
    });
    expect(response.status).toBe(302);
    expect(response.headers.location).toMatch(/^\/sign-in\?redirectTo=/);
  });

  it('refuses an admin form over the limit with 413 and does nothing with it', async () => {
    const cookie = await signInCookie(service.url, 'ops@example.com', PASSWORD);
    const response = await rawRequest(`${service.url}/administration/runs`, {
      method: 'POST',
      headers: { ...FORM, cookie },
      body: form({ agent: '@acme/nothing', text: 'a'.repeat(1024 * 1024) }),
    });
    expect(response.status).toBe(413);
    expect(response.body).toContain('The form is larger than');
    expect(await t.db.models.Run.countDocuments({})).toBe(0);
  });

  it('refuses an oversized sign-in form with 413 before looking at any password', async () => {
    const response = await rawRequest(`${service.url}/sign-in`, { method: 'POST', headers: FORM, body: form({ email: 'ops@example.com', password: PASSWORD, pad: 'x'.repeat(100_000) }) });
    expect(response.status).toBe(413);
  });
});

describe('sign-in throttling (item 8)', () => {
  it('refuses an address after 5 failures for one account with 429 in plain words, even with the right password, and audits the failures', async () => {
    for (let i = 0; i < 5; i++) expect((await signIn('target@example.com', `wrong password ${i}`, { localAddress: '127.0.0.10' })).status).toBe(401);
    const refused = await signIn('target@example.com', PASSWORD, { localAddress: '127.0.0.10' });
    expect(refused.status).toBe(429);
    expect(refused.headers['set-cookie']).toBeUndefined();
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(60);
    expect(refused.body).toContain('Too many failed sign-in attempts. Wait 15 minutes and try again.');
    await expect
      .poll(() => t.db.models.AuditEvent.countDocuments({ action: 'auth.sign_in.failed', resourceId: 'target@example.com', 'details.reason': 'invalid_credentials' }))
      .toBe(5);
    const rows = await t.db.models.AuditEvent.find({ action: 'auth.sign_in.failed' }).lean();
    expect(JSON.stringify(rows)).not.toMatch(/wrong password|correct horse/);
    expect(rows.map((r) => (r.details as { address?: string }).address)).toContain('127.0.0.10');
  });

  it('lets the right password in from an address that has not been guessing, after another locked itself out of the account (issue 25)', async () => {
    for (let i = 0; i < 5; i++) expect((await signIn('besieged@example.com', 'a wrong password', { localAddress: '127.0.0.11' })).status).toBe(401);
    expect((await signIn('besieged@example.com', PASSWORD, { localAddress: '127.0.0.11' })).status).toBe(429);
    const owner = await signIn('besieged@example.com', PASSWORD, { localAddress: '127.0.0.20' });
    expect(owner.status).toBe(302);
    expect(owner.headers['set-cookie']).toBeDefined();
  });

  it('refuses a client address after 20 failures across accounts; other addresses still sign in', async () => {
    for (let i = 0; i < 20; i++) expect((await signIn(`guess-${i}@example.com`, 'a wrong password', { localAddress: '127.0.0.30' })).status).toBe(401);
    expect((await signIn('other@example.com', PASSWORD, { localAddress: '127.0.0.30' })).status).toBe(429);
    expect((await signIn('other@example.com', PASSWORD, { localAddress: '127.0.0.31' })).status).toBe(302);
  });

  it('holds a concurrent burst from one address to the limit: attempts in flight count', async () => {
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => signIn(`burst-${i}@example.com`, 'a wrong password', { localAddress: '127.0.0.40' })));
    const statuses = results.map((r) => r.status);
    expect(statuses.every((s) => s === 401 || s === 429)).toBe(true);
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(20);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(20);
  });
});

describe('unknown addresses and the favicon (issue 13 item 8)', () => {
  it('serves the favicon, answers an unknown page with a 404 page, and logs no error for either', async () => {
    const before = service.output().length;
    const ico = await fetch(`${service.url}/favicon.ico`);
    expect(ico.status).toBe(200);
    expect((await ico.arrayBuffer()).byteLength).toBeGreaterThan(0);
    expect((await fetch(`${service.url}/favicon.svg`)).headers.get('content-type')).toMatch(/svg/);
    const missing = await fetch(`${service.url}/administration/no-such-page`, { headers: { cookie: await signInCookie(service.url, 'ops@example.com', PASSWORD) } });
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain('There is no page at this address.');
    expect((await fetch(`${service.url}/no/such/path`)).status).toBe(404);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const logged = service.output().slice(before);
    expect(logged).not.toMatch(/No route matches|"level":"error"|\n\s+at /);
  });

  it('answers a malformed or unknown id on a detail page with a 404 page, and logs no error for it (issue 25 item 6)', async () => {
    const cookie = await signInCookie(service.url, 'ops@example.com', PASSWORD);
    const before = service.output().length;
    const absent = '0123456789abcdef01234567';
    const paths = ['jobs', 'runs', 'extensions', 'imports'].flatMap((section) => [`/administration/${section}/not-an-id`, `/administration/${section}/${'z'.repeat(300)}`, `/administration/${section}/${absent}`]);
    paths.push('/administration/agents/not-an-id/publish', `/administration/runs/${'z'.repeat(300)}/events`);
    // Page names looked up in an object: its prototype's names are no pages either.
    paths.push(...['assistants', 'connectors'].flatMap((section) => [`/administration/${section}/toString`, `/administration/${section}/constructor`]));
    const answers: Record<string, number> = {};
    for (const path of paths) {
      const response = await fetch(`${service.url}${path}`, { headers: { cookie } });
      answers[path] = response.status;
      await response.body?.cancel();
    }
    expect(answers).toEqual(Object.fromEntries(paths.map((path) => [path, 404])));
    expect(await (await fetch(`${service.url}/administration/jobs/not-an-id`, { headers: { cookie } })).text()).toContain('404 Not Found');
    await new Promise((resolve) => setTimeout(resolve, 200));
    const logged = service.output().slice(before);
    expect(logged).not.toMatch(/"level":"error"|\n\s+at /);
  });
});
