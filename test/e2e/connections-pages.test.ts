import AxeBuilder from '@axe-core/playwright';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/browser.ts';
import { signInCookie, startService, trpcCall, type RunningService } from '../helpers/service-process.ts';

/**
 * A remote peer as an operator keeps it (issue 32): its status after a call, a change that keeps
 * its sealed secret, and its removal behind a confirm. The instance is its own peer here: a real
 * A2A client registered on it, called over real HTTP.
 */
let service: RunningService;
let browser: Browser;
let context: BrowserContext;

beforeAll(async () => {
  [service, browser] = await Promise.all([startService({ env: { SERVICE_VENDOR_SCOPE: '@self' } }), launchChromium()]);
}, 120_000);

/** Signs in as the first admin, registers an A2A client here and this instance as its own peer, through the page. */
async function registerSelfAsPeer(): Promise<void> {
  await expect.poll(() => /password:\s+\S+/.test(service.output()), { timeout: 20_000 }).toBe(true);
  const email = /email:\s+(\S+)/.exec(service.output())![1]!;
  const password = /password:\s+(\S+)/.exec(service.output())![1]!;
  const cookie = await signInCookie(service.url, email, password);
  const { client, clientSecret } = await trpcCall<{ client: { clientId: string }; clientSecret: string }>(service.url, cookie, 'a2a.clients.register', { name: 'Myself', allowedAgents: ['*'], permissions: ['list', 'read', 'execute'] });
  context = await browser.newContext();
  const [name, value] = cookie.split(';')[0]!.split('=');
  await context.addCookies([{ name: name!, value: value!, url: service.url }]);
  const page = await context.newPage();
  await page.goto(`${service.url}/administration/a2a/peers`);
  await page.getByLabel('Peer id').fill('myself');
  await page.getByLabel('Name').fill('Myself');
  await page.getByLabel('Base URL').fill(service.url);
  await page.getByLabel('Client id').fill(client.clientId);
  await page.getByLabel('Client secret').fill(clientSecret);
  await page.getByRole('button', { name: 'Register peer' }).click();
  await expect.poll(() => page.getByRole('status').first().textContent()).toMatch(/^Registered Myself/);
  await page.close();
}

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

describe('the remote peers page', () => {
  it('shows a peer answering, changes it keeping its secret, and removes it after a confirm; at 1280 and 390 px with no serious axe finding', async () => {
    await registerSelfAsPeer();
    const page = await context.newPage();
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`${service.url}/administration/a2a/peers`);
      const row = page.getByRole('table', { name: 'Peers' }).getByRole('row', { name: /Myself/ });
      expect(await row.textContent()).toMatch(/Answering.*Last answer/);
      const findings = (await new AxeBuilder({ page }).analyze()).violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
      expect(findings.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
    }

    await page.getByRole('link', { name: 'Change Myself' }).click();
    // The register form becomes the change form once the page has the peer (filling before would be undone).
    await page.getByRole('heading', { name: 'Change Myself' }).waitFor();
    await page.getByLabel('Name').fill('Myself, renamed');
    await page.getByRole('button', { name: 'Save changes' }).click();
    // The card is fetched again with the kept secret's token exchange still ahead: the peer still answers.
    await expect.poll(() => page.getByRole('status').first().textContent()).toMatch(/^Saved Myself, renamed: \d+ agent\(s\) offered/);
    await expect.poll(() => page.getByRole('table', { name: 'Peers' }).textContent()).toContain('Myself, renamed');

    await page.getByRole('button', { name: 'Remove Myself, renamed' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Remove' }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toBe('Removed peer myself.');
    expect(await page.getByTestId('empty-state').textContent()).toMatch(/No peers yet/);
  }, 120_000);
});

describe('the A2A clients page', () => {
  it('changes a client’s name and grants, and keeps revoked clients out of the list unless asked for', async () => {
    const page = await context.newPage();
    await page.goto(`${service.url}/administration/a2a/clients`);
    await page.getByRole('link', { name: 'Change Myself' }).click();
    await page.getByRole('heading', { name: 'Change Myself' }).waitFor();
    await page.getByLabel('Name').fill('Myself, narrowed');
    await page.getByLabel('Allowed agents').fill('@self/summarizer');
    await page.getByRole('checkbox', { name: 'execute' }).uncheck();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toBe('Saved Myself, narrowed: its next call is checked against these grants.');
    await expect.poll(() => page.getByRole('table', { name: 'Clients' }).getByRole('row', { name: /Myself, narrowed/ }).textContent()).toMatch(/@self\/summarizer.*list, read(?!, execute)/);

    await page.getByRole('button', { name: 'Revoke' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Revoke' }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toMatch(/^Revoked svc_/);
    await expect.poll(() => page.getByTestId('empty-state').textContent()).toBe('No active clients.');
    await page.getByLabel('Show').selectOption('revoked');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.waitForURL(/show=revoked/);
    expect(await page.getByRole('table', { name: 'Clients' }).textContent()).toMatch(/Myself, narrowed.*revoked/);
  }, 120_000);
});
