import path from 'node:path';
import { createUserStore } from '@service/core/auth';
import { useTestDatabase } from '@service/core/testing';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installExampleAgents } from '../helpers/a2a.ts';
import { artifactsDir, launchChromium } from '../helpers/browser.ts';
import { startService, type RunningService } from '../helpers/service-process.ts';

const dbA = useTestDatabase();
const dbB = useTestDatabase();
let a: RunningService;
let b: RunningService;
let browser: Browser;

beforeAll(async () => {
  await installExampleAgents(dbB.db, '@globex');
  await createUserStore(dbA.db.models).create({ email: 'ops@acme.test', password: 'correct horse battery', role: 'admin' });
  await createUserStore(dbB.db.models).create({ email: 'ops@globex.test', password: 'correct horse battery', role: 'admin' });
  [a, b, browser] = await Promise.all([
    startService({ mongodbUri: dbA.uri, env: { SERVICE_VENDOR_SCOPE: '@acme', SERVICE_A2A_HTTP_ENABLED: 'true' } }),
    // B's LLM turns take 3 s, so A's run view has loaded while the remote run still works and must follow it by its stream
    // (a run that paused before the page loaded has nothing to follow: that made this test depend on the machine's speed).
    startService({ mongodbUri: dbB.uri, env: { SERVICE_VENDOR_SCOPE: '@globex', SERVICE_A2A_HTTP_ENABLED: 'true', SERVICE_LLM_SCRIPTED_DELAY_MS: '3000' } }),
    launchChromium(),
  ]);
});

afterAll(async () => {
  await browser?.close();
  await Promise.all([a?.stop(), b?.stop()]);
});

async function signIn(page: Page, url: string, email: string) {
  await page.goto(`${url}/sign-in`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill('correct horse battery');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${url}/administration`);
}

describe('A2A screens across two instances', () => {
  it('registers a client on B and a peer on A, runs B\'s flow from A, and answers its interrupt in A\'s run view', async () => {
    const pageB = await browser.newPage();
    await signIn(pageB, b.url, 'ops@globex.test');
    await pageB.getByRole('navigation', { name: 'Administration' }).getByRole('link', { name: 'A2A clients' }).click();
    await pageB.getByLabel('Name').fill('Acme');
    await pageB.getByRole('button', { name: 'Register' }).click();
    const secret = (await pageB.getByTestId('client-secret').textContent())!;
    const clientId = (await pageB.getByRole('status').locator('code').first().textContent())!;
    expect(secret).toMatch(/^svs_/);
    // B's admin picks the agent that generic clients (no metadata.skillId) reach.
    await pageB.getByLabel('Agent', { exact: true }).selectOption('@globex/summarizer');
    await pageB.getByRole('button', { name: 'Save default agent' }).click();
    await expect.poll(() => pageB.getByRole('status').textContent()).toBe('Messages that name no agent now go to @globex/summarizer.');
    expect(await pageB.getByLabel('Agent', { exact: true }).inputValue()).toBe('@globex/summarizer');

    const page = await browser.newPage();
    await signIn(page, a.url, 'ops@acme.test');
    await page.getByRole('navigation', { name: 'Administration' }).getByRole('link', { name: 'Remote peers' }).click();
    await page.getByLabel('Peer id').fill('globex');
    await page.getByLabel('Name').fill('Globex');
    await page.getByLabel('Base URL').fill(b.url);
    await page.getByLabel('Client id').fill(clientId);
    await page.getByLabel('Client secret').fill(secret);
    await page.getByRole('button', { name: 'Register peer' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Registered Globex: 2 agent(s) offered, spoken to over A2A 1.0.');

    await page.getByRole('navigation', { name: 'Administration' }).getByRole('link', { name: 'Runs' }).click();
    await page.getByLabel('Instance').selectOption('globex');
    await page.getByLabel('Agent (skill id)').fill('@globex/editorial-review');
    await page.getByLabel('Input').fill('A draft about two instances. It needs a teaser.');
    // The run view follows the live run by its event stream, not by re-reading the run's data.
    const runDataReads: string[] = [];
    const streams: string[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (!/^\/administration\/runs\/[0-9a-f-]{36}/.test(url.pathname)) return;
      if (url.pathname.endsWith('/events')) streams.push(url.search);
      else if (request.method() === 'GET') runDataReads.push(url.pathname);
    });
    await page.getByRole('button', { name: 'Start' }).click();
    await page.waitForURL(/\/administration\/runs\/[0-9a-f-]{36}$/);
    await expect.poll(() => page.getByTestId('run-state').textContent(), { timeout: 20_000 }).toBe('input-required');
    expect(await page.getByRole('list', { name: 'Events' }).textContent()).toContain('INTERRUPT');
    expect(streams.length).toBeGreaterThanOrEqual(1);
    for (const search of streams) expect(search).toMatch(/^\?after=\d+$/);
    // The page's load, and one read when the stream says the run settled; polling every 400 ms would read it again and again.
    expect(runDataReads.length).toBeLessThanOrEqual(2);

    const form = page.getByRole('form', { name: 'Approve the summary' });
    // What is being approved: the summary B's first step wrote, carried in the remote INTERRUPT.
    expect(await form.getByRole('region', { name: 'What you are answering about' }).textContent()).toContain('[scripted] Summarize: A draft about two instances.');
    await form.getByLabel('Approve this summary *').check();
    await form.getByLabel('Notes for the writer').fill('Make it punchy.');
    const answered = page.waitForResponse((response) => response.request().method() === 'POST' && response.url().includes('/administration/runs/'));
    await form.getByRole('button', { name: 'Answer and continue' }).click();
    expect((await answered).status()).toBe(200);
    await expect.poll(() => page.getByTestId('run-state').textContent(), { timeout: 20_000 }).toBe('completed');
    expect(await page.getByRole('list', { name: 'Events' }).textContent()).toMatch(/completed/);
    await page.screenshot({ path: path.join(artifactsDir, 'run-view.png'), fullPage: true });
    expect(await dbB.db.models.Run.countDocuments({ state: 'completed', agent: '@globex/editorial-review' })).toBe(1);

    // The runs list names who started each run: A's admin by email; on B, the A2A client by its name.
    await page.getByRole('navigation', { name: 'Administration' }).getByRole('link', { name: 'Runs' }).click();
    await expect.poll(() => page.locator('tbody tr').first().locator('td').nth(3).textContent()).toBe('ops@acme.test');
    await pageB.goto(`${b.url}/administration/runs`);
    await expect.poll(() => pageB.locator('tbody tr').first().locator('td').nth(3).textContent()).toBe('Acme');
  });

  // Uses the peer the test above registered on A.
  it('cancels a remote run from A\'s run view (on B too), and leaves the answer form once a remote resume failed', async () => {
    const page = await browser.newPage();
    await signIn(page, a.url, 'ops@acme.test');
    const startRemote = async (text: string) => {
      await page.goto(`${a.url}/administration/runs`);
      await page.getByLabel('Instance').selectOption('globex');
      await page.getByLabel('Agent (skill id)').fill('@globex/editorial-review');
      await page.getByLabel('Input').fill(text);
      await page.getByRole('button', { name: 'Start' }).click();
      await page.waitForURL(/\/administration\/runs\/[0-9a-f-]{36}$/);
      await expect.poll(() => page.getByTestId('run-state').textContent(), { timeout: 20_000 }).toBe('input-required');
    };

    await startRemote('A draft to cancel. It goes nowhere.');
    await page.getByRole('button', { name: 'Cancel run (here and on the peer)' }).click();
    await expect.poll(() => page.getByTestId('run-state').textContent(), { timeout: 20_000 }).toBe('canceled');
    expect(await page.getByRole('form', { name: 'Approve the summary' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /Cancel run/ }).count()).toBe(0);
    await expect.poll(() => dbB.db.models.Run.countDocuments({ state: 'canceled', agent: '@globex/editorial-review' })).toBe(1);

    // B goes away while A's run waits: the answer cannot reach it, the run fails, and the page says so without a reload.
    await startRemote('A draft whose reviewer leaves. Sadly.');
    await b.stop();
    const form = page.getByRole('form', { name: 'Approve the summary' });
    await form.getByLabel('Approve this summary *').check();
    await form.getByRole('button', { name: 'Answer and continue' }).click();
    await expect.poll(() => page.getByTestId('run-state').textContent(), { timeout: 30_000 }).toBe('failed');
    expect(await page.getByRole('form', { name: 'Approve the summary' }).count()).toBe(0);
  }, 90_000);
});
