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

/**
 * Static pages on their own origin that load the bundle from the service, as a CMS would: node 42's
 * page at `/`, another node's at `/?item=<nid>`, and the front page (no node: an empty `itemId`,
 * as the Drupal module sends it) at `/?item=`.
 */
async function hostPage(config: Record<string, string>): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const item = new URL(req.url ?? '/', 'http://host').searchParams.get('item');
    const itemId = item ?? config.itemId!;
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`<!doctype html><html><body><h1>${itemId ? `Editing node ${itemId}` : 'Front page'}</h1><button id="before">Page button</button>
<script>window.drupalSettings = { serviceWidget: ${JSON.stringify({ ...config, itemId })} };</script>
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

  it('keeps the chat in the order it was shown across a reload, offers no Undo of an Undo, and shows a refused Undo', async () => {
    const nid = 'order1';
    site.nodes.set(nid, { nid, type: 'article', fieldsEditable: true, revisions: [{ revisionId: 20_001, status: 'published', title: 'Order title', fields: { body: 'Order body.', summary: '' } }] });
    const tab = await browser.newPage();
    await tab.goto(`${page.url}/?item=${nid}`);
    await tab.getByRole('button', { name: 'Open assistant (Alt+Shift+A)' }).click();
    const log = tab.getByRole('log');
    const shown = () => log.locator(':scope > *').evaluateAll((nodes) => nodes.map((node) => `${node.className}:${node.textContent!.slice(0, 30)}`));
    const say = async (text: string) => {
      await tab.getByLabel('Message the assistant').fill(text);
      await tab.getByRole('button', { name: 'Send' }).click();
    };
    await say('set title to "First change"');
    await expect.poll(() => log.getByRole('table', { name: 'Changes' }).count(), { timeout: 15_000 }).toBe(1);
    await expect.poll(() => tab.getByRole('button', { name: 'Send' }).isEnabled()).toBe(true);
    await say('set title to "Second change"');
    await expect.poll(() => log.getByRole('table', { name: 'Changes' }).count(), { timeout: 15_000 }).toBe(2);
    await expect.poll(() => tab.getByRole('button', { name: 'Send' }).isEnabled()).toBe(true);
    const live = await shown();
    expect(live.map((entry) => entry.split(':')[0])).toEqual(['user', 'assistant', 'changes', 'user', 'assistant', 'changes']);
    // After a reload each reply is where it was: above the diff its turn produced.
    await tab.reload();
    await tab.getByRole('button', { name: 'Open assistant (Alt+Shift+A)' }).click();
    await expect.poll(() => log.getByRole('table', { name: 'Changes' }).count()).toBe(2);
    expect(await shown()).toEqual(live);

    // The first change no longer matches the draft (the second changed the title since): refused, said so, nothing written.
    await log.getByRole('button', { name: 'Undo' }).first().click();
    await expect.poll(() => log.getByRole('alert').count(), { timeout: 15_000 }).toBe(1);
    expect(await log.getByRole('alert').textContent()).toMatch(/has changed since this edit \(title\)/);
    expect(site.nodes.get(nid)!.revisions.at(-1)!.title).toBe('Second change');
    expect(await log.getByRole('button', { name: 'Undo' }).first().isEnabled()).toBe(true);

    // The second one goes through; its own diff has no Undo, and its Undo is spent, after a reload too.
    await log.getByRole('button', { name: 'Undo' }).nth(1).click();
    await expect.poll(() => log.getByRole('table', { name: 'Changes' }).count(), { timeout: 15_000 }).toBe(3);
    expect(site.nodes.get(nid)!.revisions.at(-1)!.title).toBe('First change');
    expect(await log.locator('.changes').nth(2).getByRole('button').count()).toBe(0);
    await tab.reload();
    await tab.getByRole('button', { name: 'Open assistant (Alt+Shift+A)' }).click();
    await expect.poll(() => log.getByRole('table', { name: 'Changes' }).count()).toBe(3);
    expect(await log.locator('.changes').nth(1).getByRole('button', { name: 'Undo' }).isDisabled()).toBe(true);
    expect(await log.locator('.changes').nth(2).getByRole('button').count()).toBe(0);
    await tab.close();
  });

  it('on the front page (no node open) offers a site-level chat that answers and never edits', async () => {
    const before = JSON.stringify([...site.nodes.values()]);
    const tab = await browser.newPage();
    await tab.goto(`${page.url}/?item=`);
    await expect.poll(() => tab.locator('#service-widget').count()).toBe(1);
    await tab.getByRole('button', { name: 'Open assistant (Alt+Shift+A)' }).click();
    const input = tab.getByLabel('Message the assistant');
    expect(await input.getAttribute('placeholder')).toBe('Ask a question. To change something, open it first.');
    await input.fill('set title to "From the front page"');
    await tab.getByRole('button', { name: 'Send' }).click();
    const log = tab.getByRole('log');
    await expect.poll(() => log.textContent(), { timeout: 15_000 }).toContain('[scripted]');
    await expect.poll(() => tab.getByRole('button', { name: 'Send' }).isEnabled()).toBe(true);
    expect(await log.getByRole('table', { name: 'Changes' }).count()).toBe(0);
    expect(await log.locator('.error').count()).toBe(0);
    expect(JSON.stringify([...site.nodes.values()])).toBe(before);
    // Its chat is its own: a node page does not show it.
    await tab.goto(page.url);
    await tab.getByRole('button', { name: 'Open assistant (Alt+Shift+A)' }).click();
    expect(await tab.getByRole('log').textContent()).not.toContain('From the front page');
    await tab.close();
  });
});
