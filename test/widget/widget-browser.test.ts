import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { testServices, useTestDatabase } from '@service/core/testing';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/browser.ts';
import { startCmsADouble, type CmsADouble } from '../helpers/cms-a-double.ts';
import { startService, type RunningService } from '../helpers/service-process.ts';

const t = useTestDatabase();
let site: CmsADouble;
let service: RunningService;
let browser: Browser;
let page: { url: string; close(): Promise<void> };

/** A static editor page on its own origin that loads the bundle from the service, as a CMS would. */
async function hostPage(config: Record<string, string>): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`<!doctype html><html><body><h1>Editing node 42</h1><button id="before">Page button</button>
<script>window.drupalSettings = { serviceWidget: ${JSON.stringify(config)} };</script>
<script src="${config.serviceUrl}/api/cms-a-widget/bundle.js"></script></body></html>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

beforeAll(async () => {
  const masterKey = randomBytes(32).toString('base64');
  site = await startCmsADouble(`mcpkey_${randomBytes(8).toString('hex')}`);
  const services = testServices(t.db, { SERVICE_MASTER_KEY: masterKey });
  const admin = { type: 'ui', id: 'admin', email: 'a@acme.test', role: 'admin' } as const;
  await services.connectorInstances.put(admin, { connector: 'cms_a', id: 'drupal', name: 'Drupal', siteUrl: site.siteUrl, credential: site.key });
  const { key } = await services.widgetKeys.rotate(admin, 'cms_a', 'drupal');
  [service, browser] = await Promise.all([startService({ mongodbUri: t.uri, env: { SERVICE_MASTER_KEY: masterKey } }), launchChromium()]);
  page = await hostPage({ serviceUrl: service.url, apiKey: key, instanceId: 'drupal', agentSlug: 'cms-a-content-editor', itemId: '42' });
  await services.widgetKeys.configure(admin, 'cms_a', 'drupal', { allowedOrigins: [page.url] });
});

afterAll(async () => {
  await browser?.close();
  await service?.stop();
  await page?.close();
  await site?.close();
});

describe('the widget in Chromium on a host page', () => {
  it('opens by keyboard, streams a change with its diff, undoes it, and closes on Esc', async () => {
    const tab = await browser.newPage();
    await tab.goto(page.url);
    const widget = tab.locator('#service-widget');
    await expect.poll(() => widget.count()).toBe(1);

    await tab.keyboard.press('Alt+Shift+A');
    const input = tab.getByLabel('Message the assistant');
    await expect.poll(() => input.evaluate((el) => el === (el.getRootNode() as ShadowRoot).activeElement)).toBe(true);
    await tab.keyboard.type('set title to "Title from the widget"');
    await tab.keyboard.press('Enter');

    const log = tab.getByRole('log');
    const diff = log.getByRole('table', { name: 'Changes' }).first();
    await expect.poll(() => diff.textContent(), { timeout: 15_000 }).toContain('Title from the widget');
    expect(await diff.textContent()).toContain('Published title');
    expect(await log.textContent()).toContain('[scripted]');
    expect(site.nodes.get('42')!.revisions.at(-1)!.title).toBe('Title from the widget');
    expect(site.published('42')!.title).toBe('Published title');

    await log.getByRole('button', { name: 'Undo' }).first().click();
    await expect.poll(() => log.getByRole('table', { name: 'Changes' }).count()).toBe(2);
    expect(await log.getByRole('table', { name: 'Changes' }).nth(1).textContent()).toContain('Published title');
    expect(site.nodes.get('42')!.revisions.at(-1)!.title).toBe('Published title');

    await input.focus();
    await tab.keyboard.press('Escape');
    expect(await tab.getByRole('dialog', { name: 'Assistant' }).isHidden()).toBe(true);

    // The history survives a reload within the session.
    await tab.reload();
    await tab.keyboard.press('Alt+Shift+A');
    await expect.poll(() => tab.getByRole('log').textContent()).toContain('set title to "Title from the widget"');
  });
});
