import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/browser.ts';
import { signInCookie, startService, type RunningService } from '../helpers/service-process.ts';

/**
 * Forms that explain themselves (issue 13): limits rendered from the same zod schema the server
 * parses, and a refused value answered next to its field in plain words, with and without
 * JavaScript. Over-long values are sent with the `maxlength` attribute removed, as a client that
 * ignores it (or a pasted value in an older browser) would.
 */
let service: RunningService;
let browser: Browser;
let cookie: string;

beforeAll(async () => {
  [service, browser] = await Promise.all([startService({}), launchChromium()]);
  for (let i = 0; i < 100 && !/password:\s+\S+/.test(service.output()); i++) await new Promise((resolve) => setTimeout(resolve, 200));
  cookie = await signInCookie(service.url, /email:\s+(\S+)/.exec(service.output())![1]!, /password:\s+(\S+)/.exec(service.output())![1]!);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

async function signedIn(javaScriptEnabled: boolean): Promise<BrowserContext> {
  const context = await browser.newContext({ javaScriptEnabled });
  const [name, value] = cookie.split('=') as [string, string];
  await context.addCookies([{ name, value, url: service.url }]);
  return context;
}

/** The message shown for a field: the element its `aria-describedby` names that holds the error. */
async function fieldError(page: Page, label: string): Promise<string | null> {
  const input = page.getByLabel(label, { exact: true });
  await expect.poll(() => input.getAttribute('aria-invalid')).toBe('true');
  return input.evaluate((element) => {
    const ids = element.getAttribute('aria-describedby')?.split(' ') ?? [];
    const error = ids.map((id) => document.getElementById(id)).find((described) => described?.hasAttribute('data-field-error'));
    return error?.textContent ?? null;
  });
}

async function withoutLimit(page: Page, label: string, value: string): Promise<void> {
  const input = page.getByLabel(label, { exact: true });
  await input.evaluate((element) => element.removeAttribute('maxlength'));
  await input.fill(value);
}

const cases: { page: string; label: string; limit: number; button: string; empty: string; over: RegExp }[] = [
  { page: '/administration/a2a/clients', label: 'Name', limit: 100, button: 'Register', empty: 'Enter a name.', over: /^Shorten the name to 100 characters or fewer\.$/ },
];

describe('admin forms explain refusals next to the field', () => {
  for (const javaScriptEnabled of [true, false]) {
    for (const c of cases) {
      it(`${c.page} (${javaScriptEnabled ? 'with' : 'without'} JavaScript): limits from the schema, plain-word errors for empty and over-long values`, async () => {
        const context = await signedIn(javaScriptEnabled);
        const page = await context.newPage();
        await page.goto(`${service.url}${c.page}`);
        const input = page.getByLabel(c.label, { exact: true });
        expect(await input.getAttribute('maxlength')).toBe(String(c.limit));
        expect(await input.getAttribute('required')).not.toBeNull();

        // Blank (spaces pass `required`, the schema trims them away).
        await input.fill('   ');
        await page.getByRole('button', { name: c.button, exact: true }).click();
        expect(await fieldError(page, c.label)).toBe(c.empty);

        await withoutLimit(page, c.label, 'x'.repeat(3000));
        await page.getByRole('button', { name: c.button, exact: true }).click();
        await expect.poll(() => fieldError(page, c.label)).toMatch(c.over);
        const text = (await page.locator('main').textContent()) ?? '';
        expect(text).not.toMatch(/too_big|"code"|"origin"/);
        await context.close();
      }, 60_000);
    }
  }
});

describe('a refused form never echoes a secret back', () => {
  it('Remote peers: the client secret typed into a refused form is not in the answer', async () => {
    const secret = `secret-${crypto.randomUUID()}`;
    const response = await fetch(`${service.url}/administration/a2a/peers`, {
      method: 'POST',
      headers: { cookie, origin: service.url, 'sec-fetch-site': 'same-origin', 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ intent: 'register', id: 'Not A Slug', name: 'Globex', baseUrl: 'ftp://nowhere', clientId: 'c1', clientSecret: secret }),
    });
    expect(response.status).toBe(400);
    const html = await response.text();
    expect(html).toContain('Enter the peer’s base URL starting with https://');
    expect(html).toContain('Globex');
    expect(html).not.toContain(secret);
  });
});

describe('refusals said once, in the words of the whole value', () => {
  it('A2A clients: every allowed agent that is not a package name is named, and a registered client’s name does not stay in the form', async () => {
    const context = await signedIn(true);
    const page = await context.newPage();
    await page.goto(`${service.url}/administration/a2a/clients`);
    await page.locator('html[data-js]').waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Editorial desk');
    await page.getByLabel('Allowed agents', { exact: true }).fill('editorial review, @tour/summarizer, Summarizer');
    await page.getByRole('button', { name: 'Register', exact: true }).click();
    expect(await fieldError(page, 'Allowed agents')).toBe('Use package names such as @scope/agent, or * for every agent. Not package names: editorial, review, Summarizer.');

    await page.getByLabel('Allowed agents', { exact: true }).fill('@tour/summarizer');
    await page.getByRole('button', { name: 'Register', exact: true }).click();
    await expect.poll(() => page.getByText('Editorial desk').count()).toBeGreaterThan(0);
    await expect.poll(() => page.getByLabel('Name', { exact: true }).inputValue()).toBe('');
    await context.close();
  }, 60_000);

  it('Import from GitHub: a refused repository URL is said next to the field only', async () => {
    const context = await signedIn(true);
    const page = await context.newPage();
    await page.goto(`${service.url}/administration/marketplace/import`);
    await page.locator('html[data-js]').waitFor();
    await page.getByLabel('Repository URL', { exact: true }).fill('https://github.com/only-an-owner');
    await page.getByRole('button', { name: 'Import from GitHub', exact: true }).click();
    const reason = await fieldError(page, 'Repository URL');
    expect(reason).toMatch(/^must /);
    expect(await page.locator('main').getByText(reason!, { exact: false }).count()).toBe(1);
    await context.close();
  }, 60_000);
});
