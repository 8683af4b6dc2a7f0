import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { strToU8, zipSync } from 'fflate';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchAccessToken } from '../helpers/a2a.ts';
import { artifactsDir, launchChromium, logCspViolations } from '../helpers/browser.ts';
import { packageFiles } from '../helpers/github-double.ts';
import { signInCookie, startService, trpcCall, type RunningService } from '../helpers/service-process.ts';

/**
 * Every admin page as a user meets it (issue 13): on a desktop (1280 px) and a phone (390 px)
 * window, no page scrolls sideways, none logs a console error (a refused inline style or script
 * included), and axe-core finds nothing serious or critical. The pages that show one record are
 * visited with real records: published examples, their jobs, an import, a run waiting for input.
 */
let service: RunningService;
let browser: Browser;
let cookie: string;
const pages: string[] = [];

const WIDTHS = [1280, 390] as const;

/** Polls `read` until `done` holds (expect.poll works only inside a test; seeding runs before them). */
async function until<T>(read: () => Promise<T> | T, done: (value: T) => boolean, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`still ${JSON.stringify(value)} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}

async function seed(url: string): Promise<void> {
  await until(() => /password:\s+\S+/.test(service.output()), Boolean, 20_000);
  const email = /email:\s+(\S+)/.exec(service.output())![1]!;
  const password = /password:\s+(\S+)/.exec(service.output())![1]!;
  cookie = await signInCookie(url, email, password);
  const { jobs } = await trpcCall<{ jobs: { packageName: string; jobId: string }[] }>(url, cookie, 'agents.publishExamples', undefined);
  let extensionId = '';
  for (const { jobId } of jobs) {
    const job = await until(() => trpcCall<{ state: string; extensionId: string }>(url, cookie, 'agents.job', { id: jobId }, 'query'), (j) => j.state !== 'running', 60_000);
    if (job.state !== 'succeeded') throw new Error(`publishing the examples: job ${jobId} ${job.state}`);
    extensionId = job.extensionId;
  }
  const files = packageFiles({ name: '@tour/copyleft-faq', version: '1.0.0', license: 'GPL-3.0-only', licenseText: 'GNU GENERAL PUBLIC LICENSE\nVersion 3, 29 June 2007' });
  const zip = Buffer.from(zipSync(Object.fromEntries(Object.entries(files).map(([name, text]) => [`copyleft-faq/${name}`, strToU8(text)]))));
  const { jobId: importId } = await trpcCall<{ jobId: string }>(url, cookie, 'imports.fromZip', { fileName: 'copyleft-faq.zip', contentBase64: zip.toString('base64') });

  await trpcCall(url, cookie, 'system.setFlag', { name: 'a2aHttpEnabled', enabled: true });
  const { client, clientSecret } = await trpcCall<{ client: { clientId: string }; clientSecret: string }>(url, cookie, 'a2a.clients.register', { name: 'Tour peer with a rather long name to wrap', allowedAgents: ['*'], permissions: ['list', 'read', 'execute'] });
  const token = await fetchAccessToken(`${url}/api/oauth/token`, client.clientId, clientSecret);
  const sent = await fetch(`${url}/a2a/tour/editorial-review`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'a2a-version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: `Please review: ${'a very long unbroken word '.repeat(3)}${'x'.repeat(300)}` }] } } }),
  });
  const runId = ((await sent.json()) as { result: { task: { id: string } } }).result.task.id;

  pages.push(
    '/administration',
    '/administration/marketplace',
    '/administration/marketplace/import',
    '/administration/agents',
    `/administration/agents/${extensionId}/publish`,
    `/administration/extensions/${extensionId}`,
    '/administration/jobs',
    `/administration/jobs/${jobs[0]!.jobId}`,
    `/administration/imports/${importId}`,
    '/administration/environment/registries',
    '/administration/runs',
    `/administration/runs/${runId}`,
    '/administration/usage',
    '/administration/connectors/cms-a-widget',
    '/administration/connectors/cms-b-widget',
    '/administration/assistants/cms-a-widget',
    '/administration/assistants/cms-b-widget',
    '/administration/a2a/clients',
    '/administration/a2a/peers',
    '/administration/mcp/servers',
    '/administration/audit',
    '/administration/users',
    '/administration/account',
    '/administration/no-such-page',
  );
}

beforeAll(async () => {
  [service, browser] = await Promise.all([startService({ env: { SERVICE_VENDOR_SCOPE: '@tour' } }), launchChromium()]);
  await seed(service.url);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

async function contextAt(width: number, signedIn: boolean): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width, height: 800 } });
  if (signedIn) {
    const [name, value] = cookie.split('=') as [string, string];
    await context.addCookies([{ name, value, url: service.url }]);
  }
  return context;
}

interface PageCheck {
  overflow: number;
  consoleErrors: string[];
  violations: string[];
  brokenWords: string[];
  clippedControls: string[];
  internalReferences: string[];
}

/**
 * Words broken across lines inside table cells, code and description values: a name such as
 * `@tour/editorial-review` or `admin@service.local` may wrap after one of its separators, never
 * inside a word ("edito / rial"). Each run of letters and digits must lie on one line, except in
 * a token longer than 40 characters (a hash, a pasted blob, a long URL), which may break anywhere.
 */
function findBrokenWords(): string[] {
  const found: string[] = [];
  const roots = Array.from(document.querySelectorAll('main td, main th, main code, main dd, header'));
  const seen = new Set<Node>();
  for (const root of roots) {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (seen.has(node)) continue;
      seen.add(node);
      const text = node.textContent ?? '';
      // A long token may be split into several text nodes (<wbr> after its separators): look at its element's text.
      const blobs = (node.parentElement?.textContent ?? text).match(/\S{41,}/g) ?? [];
      for (const match of text.matchAll(/[\p{L}\p{N}]+/gu)) {
        if (match[0].length < 2 || blobs.some((blob) => blob.includes(match[0]))) continue;
        const range = document.createRange();
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        const tops = new Set(Array.from(range.getClientRects()).filter((r) => r.width > 0).map((r) => Math.round(r.top)));
        if (tops.size > 1) found.push(`"${match[0]}" in "${text.trim().slice(0, 60)}"`);
      }
    }
  }
  return found;
}

/** Buttons (and links drawn as buttons) whose label does not fit: clipped, cut off by their box, or scrolled out of it. */
function findClippedControls(): string[] {
  const found: string[] = [];
  for (const control of Array.from(document.querySelectorAll<HTMLElement>('button, a.inline-flex, summary'))) {
    if (control.getClientRects().length === 0 || control.closest('[hidden], .sr-only')) continue;
    const label = (control.textContent ?? '').trim().slice(0, 40) || control.getAttribute('aria-label') || control.tagName;
    if (control.scrollWidth > control.clientWidth + 1) found.push(`${label}: label ${control.scrollWidth} px in ${control.clientWidth} px`);
    // A label broken inside a word is a squeezed control even when nothing overflows.
    for (const node of Array.from(control.childNodes as NodeListOf<ChildNode>).filter((n) => n.nodeType === Node.TEXT_NODE)) {
      for (const match of (node.textContent ?? '').matchAll(/[\p{L}\p{N}]+/gu)) {
        if (match[0].length < 2 || match[0].length > 40) continue;
        const range = document.createRange();
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        if (new Set(Array.from(range.getClientRects()).map((r) => Math.round(r.top))).size > 1) found.push(`${label}: "${match[0]}" broken`);
      }
    }
    // Inside a box that scrolls sideways (a table), the control must be visible without scrolling at 1280 px.
    if (window.innerWidth >= 1024) {
      const box = control.closest('.overflow-x-auto');
      if (box && control.getBoundingClientRect().right > box.getBoundingClientRect().right + 1) found.push(`${label}: cut off by its scrolling box`);
    }
  }
  return found;
}

let patternInputs = 0;

async function check(page: Page, pathname: string, width: number): Promise<PageCheck> {
  const consoleErrors: string[] = [];
  page.on('console', (message) => message.type() === 'error' && consoleErrors.push(message.text()));
  page.on('pageerror', (error) => consoleErrors.push(error.message));
  await logCspViolations(page);
  const response = await page.goto(`${service.url}${pathname}`, { waitUntil: 'networkidle' });
  expect(response?.status(), pathname).toBe(pathname.includes('no-such-page') ? 404 : 200);
  // Hydrated: root.tsx marks the document once React has taken over.
  const hydrated = await page.locator('html[data-js]').waitFor({ state: 'attached', timeout: 10_000 }).then(() => true, () => false);
  if (!hydrated) consoleErrors.push('the page did not hydrate within 10 s');
  // Browsers compile `pattern` with the v flag only when they validate, and log a refused one as a console error.
  patternInputs += await page.evaluate(() => {
    const inputs = Array.from(document.querySelectorAll<HTMLInputElement>('input[pattern]'));
    for (const input of inputs) input.checkValidity();
    return inputs.length;
  });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  const brokenWords = await page.evaluate(findBrokenWords);
  const clippedControls = await page.evaluate(findClippedControls);
  // The UI speaks to operators: no decision records or other project internals in what it shows.
  const internalReferences = (await page.locator('body').innerText()).match(/\bADR \d+/g) ?? [];
  const axe = await new AxeBuilder({ page }).analyze();
  const violations = axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')}`);
  await page.screenshot({ path: path.join(artifactsDir, 'pages', `${width}${pathname.replaceAll('/', '_')}.png`), fullPage: true });
  // A 404 page logs the failed document request itself; that is the page's purpose, not an error of it.
  return { overflow, consoleErrors: consoleErrors.filter((text) => !(pathname.includes('no-such-page') && /status of 404/.test(text))), violations, brokenWords, clippedControls, internalReferences };
}

describe('every admin page, on a desktop and on a phone', () => {
  for (const width of WIDTHS) {
    it(`at ${width} px: no sideways scroll, no console error, no serious or critical axe finding, no word broken in a name, no clipped control`, async () => {
      const results: Record<string, PageCheck> = {};
      patternInputs = 0;
      const signedOut = await contextAt(width, false);
      results['/sign-in'] = await check(await signedOut.newPage(), '/sign-in', width);
      await signedOut.close();
      const context = await contextAt(width, true);
      for (const pathname of pages) results[pathname] = await check(await context.newPage(), pathname, width);
      await context.close();
      const failing = Object.entries(results).filter(([, r]) => r.overflow > 0 || r.consoleErrors.length > 0 || r.violations.length > 0 || r.brokenWords.length > 0 || r.clippedControls.length > 0 || r.internalReferences.length > 0);
      expect(Object.fromEntries(failing)).toEqual({});
      // The id, URL and package-name fields carry patterns; each was compiled above without an error.
      expect(patternInputs).toBeGreaterThan(5);
      expect(Object.keys(results)).toHaveLength(pages.length + 1);
    }, 300_000);
  }

  it('at 390 px the navigation is behind a Menu disclosure, grouped, and still reaches every section', async () => {
    const context = await contextAt(390, true);
    const page = await context.newPage();
    await page.goto(`${service.url}/administration`);
    await page.locator('html[data-js]').waitFor();
    const nav = page.getByRole('navigation', { name: 'Administration' });
    expect(await nav.isVisible()).toBe(false);
    // The top bar names the product and the instance scope.
    expect(await page.getByRole('banner').textContent()).toContain('@tour');
    await page.locator('summary', { hasText: 'Menu' }).click();
    expect(await nav.getByRole('list', { name: 'Connections' }).getByRole('link').allTextContents()).toEqual(['A2A clients', 'Remote peers', 'MCP connections', 'MCP servers', 'Drupal sites', 'WordPress sites', 'Drupal assistants', 'WordPress assistants']);
    await nav.getByRole('link', { name: 'Audit log' }).click();
    await page.waitForURL(`${service.url}/administration/audit`);
    // The menu closes on navigation.
    await expect.poll(() => nav.isVisible()).toBe(false);
    await context.close();
  }, 60_000);
});
