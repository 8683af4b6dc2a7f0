/**
 * The widget in Chromium on a real Drupal 10.3: the module puts it on the node edit page and the
 * front page for a signed-in editor who may use it, the bundle comes from a running service, and an
 * edit asked for in the chat lands in Drupal as a draft revision while visitors keep the published
 * one; Undo takes back exactly that edit and is refused once the draft was published; the front
 * page is a site-level chat that cannot write. With and without Content Moderation.
 */
import { randomBytes } from 'node:crypto';
import { testServices, useTestDatabase } from '@service/core/testing';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/browser.ts';
import { callSiteTool } from '../helpers/cms-a-contract.ts';
import { drupalSkipReason, skipNote, startDrupal, type DrupalSite } from '../helpers/drupal-site.ts';
import { startService, type RunningService } from '../helpers/service-process.ts';

const t = useTestDatabase();
const skip = drupalSkipReason();
const admin = { type: 'ui', id: 'admin', email: 'a@acme.test', role: 'admin' } as const;
const masterKey = randomBytes(32).toString('base64');
let service: RunningService;
let browser: Browser;

beforeAll(async () => {
  if (skip) return;
  [service, browser] = await Promise.all([startService({ mongodbUri: t.uri, env: { SERVICE_MASTER_KEY: masterKey } }), launchChromium()]);
});
afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

/** Signs the site's editor in through Drupal's own login form. */
async function signIn(tab: Page, site: DrupalSite): Promise<void> {
  await tab.goto(`${site.siteUrl}/user/login`);
  const form = tab.locator('#user-login-form');
  await form.locator('[name="name"]').fill(site.users.editor.name);
  await form.locator('[name="pass"]').fill(site.users.editor.pass);
  await Promise.all([tab.waitForURL((url) => !url.pathname.startsWith('/user/login')), form.locator('[type="submit"]').click()]);
}

const kinds = [
  ['core pending revisions', false],
  ['Content Moderation', true],
] as const;
for (const [name, moderation] of kinds) describe.skipIf(skip)(`the widget on a real Drupal 10.3 (${name})${skipNote(skip)}`, () => {
  let site: DrupalSite;
  const instanceId = `drupal-${moderation ? 'moderated' : 'core'}`;

  beforeAll(async () => {
    site = await startDrupal({ moderation });
    const services = testServices(t.db, { SERVICE_MASTER_KEY: masterKey });
    await services.connectorInstances.put(admin, { connector: 'cms_a', id: instanceId, name: `Drupal (${name})`, siteUrl: site.siteUrl, credential: site.key });
    const { key } = await services.widgetKeys.rotate(admin, 'cms_a', instanceId);
    await services.widgetKeys.configure(admin, 'cms_a', instanceId, { allowedOrigins: [site.siteUrl] });
    // The module's settings, as the site owner saves them on its form.
    await site.php(
      `\\Drupal::configFactory()->getEditable('service_widget.settings')->set('service_url', $input['serviceUrl'])->set('instance_id', $input['instanceId'])->save();
       \\Drupal::state()->set('service_widget.api_key', $input['apiKey']); return TRUE;`,
      { serviceUrl: service.url, instanceId, apiKey: key },
    );
  });
  afterAll(async () => {
    await site?.close();
  });

  it('edits a node from its edit page into a draft revision; visitors keep the published one', async () => {
    const tab = await browser.newPage();
    try {
      await signIn(tab, site);
      await tab.goto(`${site.siteUrl}/node/${site.nid('42')}/edit`);
      await expect.poll(() => tab.locator('#service-widget').count(), { timeout: 15_000 }).toBe(1);
      await tab.keyboard.press('Alt+Shift+A');
      const input = tab.getByLabel('Message the assistant');
      await input.fill('set title to "Title from the widget"');
      await input.press('Enter');
      const diff = tab.getByRole('log').getByRole('table', { name: 'Changes' }).first();
      await expect.poll(() => diff.textContent(), { timeout: 30_000 }).toContain('Title from the widget');
      expect(await diff.textContent()).toContain('Published title');
      expect(site.revisions('42').at(-1)).toMatchObject({ status: 'draft', title: 'Title from the widget' });
      expect(site.published('42')).toMatchObject({ title: 'Published title' });
      const visitor = await (await fetch(`${site.siteUrl}/node/${site.nid('42')}`)).text();
      expect(visitor).toContain('Published title');
      expect(visitor).not.toContain('Title from the widget');

      // Undo puts the old title back into the draft, and only the draft.
      const log = tab.getByRole('log');
      await log.getByRole('button', { name: 'Undo' }).first().click();
      await expect.poll(() => log.getByRole('table', { name: 'Changes' }).count(), { timeout: 15_000 }).toBe(2);
      expect(site.revisions('42').at(-1)).toMatchObject({ status: 'draft', title: 'Published title' });
      expect(site.published('42')).toMatchObject({ title: 'Published title' });

      // An edit whose draft was published since is not undone: the widget says why, Drupal is unchanged.
      await input.fill('set title to "Second title"');
      await input.press('Enter');
      await expect.poll(() => log.getByRole('table', { name: 'Changes' }).count(), { timeout: 30_000 }).toBe(3);
      expect((await callSiteTool(site.siteUrl, site.key, 'node_publish', { nid: site.nid('42') })).error).toBeUndefined();
      const revisionsBefore = site.revisions('42');
      await log.locator('.changes').nth(2).getByRole('button', { name: 'Undo' }).click();
      await expect.poll(() => log.getByRole('alert').count(), { timeout: 15_000 }).toBe(1);
      expect(site.revisions('42')).toEqual(revisionsBefore);
      expect(site.published('42')).toMatchObject({ title: 'Second title' });
    } finally {
      await tab.close();
    }
  });

  it('the node edit form shows the assistant\'s draft, and saving it keeps the draft a draft', async () => {
    const tab = await browser.newPage();
    try {
      const nid = site.nid('abc123');
      expect((await callSiteTool(site.siteUrl, site.key, 'node_create_draft_revision', { nid })).error).toBeUndefined();
      expect((await callSiteTool(site.siteUrl, site.key, 'node_update', { nid, fields: { title: 'Draft by the assistant' } })).error).toBeUndefined();
      await signIn(tab, site);
      await tab.goto(`${site.siteUrl}/node/${nid}/edit`);
      expect(await tab.locator('#edit-title-0-value').inputValue()).toBe('Draft by the assistant');
      await Promise.all([tab.waitForURL((url) => !url.pathname.endsWith('/edit')), tab.locator('#edit-submit').click()]);
      // Visitors keep the published revision, and the assistant can go on writing the draft.
      expect(site.published('abc123')).toMatchObject({ title: 'Alphanumeric node' });
      expect(site.revisions('abc123').at(-1)).toMatchObject({ status: 'draft', title: 'Draft by the assistant' });
      expect((await callSiteTool(site.siteUrl, site.key, 'node_update', { nid, fields: { title: 'Draft, written again' } })).error).toBeUndefined();
      expect(site.published('abc123')).toMatchObject({ title: 'Alphanumeric node' });
    } finally {
      await tab.close();
    }
  });

  it('appears on the front page for the editor, and not for a visitor', async () => {
    const visitor = await (await fetch(`${site.siteUrl}/`)).text();
    expect(visitor).not.toContain('serviceWidget');
    const tab = await browser.newPage();
    try {
      await signIn(tab, site);
      await tab.goto(`${site.siteUrl}/`);
      await expect.poll(() => tab.locator('#service-widget').count(), { timeout: 15_000 }).toBe(1);
      await tab.keyboard.press('Alt+Shift+A');
      // A site-level chat: it answers, and has no tool that could change a node.
      const revisionsBefore = site.revisions('42');
      const input = tab.getByLabel('Message the assistant');
      await input.fill('set title to "Not from the front page"');
      await input.press('Enter');
      const log = tab.getByRole('log');
      await expect.poll(async () => (await log.locator('.assistant').last().textContent())?.trim() ?? '', { timeout: 30_000 }).not.toBe('');
      expect(await log.getByRole('table', { name: 'Changes' }).count()).toBe(0);
      expect(site.revisions('42')).toEqual(revisionsBefore);
    } finally {
      await tab.close();
    }
  });
});
