import { randomBytes } from 'node:crypto';
import { createUserStore } from '@service/core/auth';
import { testServices, useTestDatabase } from '@service/core/testing';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/browser.ts';
import { startCmsADouble, type CmsADouble } from '../helpers/cms-a-double.ts';
import { startService, type RunningService } from '../helpers/service-process.ts';

const t = useTestDatabase();
let service: RunningService;
let browser: Browser;
let site: CmsADouble;

beforeAll(async () => {
  await createUserStore(t.db.models).create({ email: 'ops@acme.test', password: 'correct horse battery', role: 'admin' });
  [service, browser, site] = await Promise.all([startService({ mongodbUri: t.uri }), launchChromium(), startCmsADouble(`key_${randomBytes(8).toString('hex')}`)]);
});

afterAll(async () => {
  await browser?.close();
  await service?.stop();
  await site?.close();
});

describe('the CMS-A connector screen', () => {
  it('adds an instance with a write-only key and tests the connection; revokes its widget key, changes and removes it after confirms', async () => {
    const page = await browser.newPage();
    await page.goto(`${service.url}/sign-in`);
    await page.getByLabel('Email').fill('ops@acme.test');
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${service.url}/administration`);
    await page.getByRole('navigation', { name: 'Administration' }).getByRole('link', { name: 'Drupal sites' }).click();
    await page.getByLabel('Instance id').fill('drupal');
    await page.getByLabel('Name').fill('Newsroom');
    await page.getByLabel('Site URL').fill(site.siteUrl);
    await page.getByLabel('MCP key of the tools module').fill(site.key);
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Saved Newsroom.');
    expect(await page.content()).not.toContain(site.key);
    await page.getByRole('button', { name: 'Test connection' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('drupal: connected');

    // Its assistant: a widget key generated and shown once, then only its prefix.
    await page.getByRole('navigation', { name: 'Administration' }).getByRole('link', { name: 'Drupal assistants' }).click();
    await page.getByRole('button', { name: 'Generate key' }).click();
    const key = (await page.getByTestId('widget-key').textContent())!;
    expect(key).toMatch(/^swk_[A-Za-z0-9_-]{43}$/);
    expect(await testServices(t.db).widgetKeys.verify('cms_a', 'drupal', key)).toBe(true);
    await page.reload();
    expect(await page.content()).not.toContain(key);
    expect(await page.getByText(`${key.slice(0, 8)}…`).count()).toBe(1);

    // Revoked after a confirm: the card leaves the default list and shows under the Show filter (a GET form).
    await page.getByRole('button', { name: 'Revoke key' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Revoke key' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toContain('Widget key of drupal revoked');
    await expect.poll(() => page.getByRole('region', { name: 'Newsroom' }).count()).toBe(0);
    await page.getByLabel('Show').selectOption('revoked');
    await page.getByRole('button', { name: 'Show', exact: true }).click();
    await page.waitForURL(/\?show=revoked$/);
    expect(await page.getByRole('region', { name: 'Newsroom' }).textContent()).toContain('revoked');
    expect(await testServices(t.db).widgetKeys.verify('cms_a', 'drupal', key)).toBe(false);

    // The instance changed (its name; the empty key keeps the sealed one), then removed after a confirm.
    await page.goto(`${service.url}/administration/connectors/cms-a-widget`);
    await page.getByRole('link', { name: 'Change Newsroom' }).click();
    await page.waitForURL(/\?edit=drupal$/);
    // The change form replaces the add form once the page has the instance (filling before would be undone).
    await expect.poll(() => page.getByLabel('Instance id').inputValue()).toBe('drupal');
    await page.getByLabel('Name').fill('Newsdesk');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Saved Newsdesk.');
    // The sealed key stayed: the connection still works.
    await page.getByRole('button', { name: 'Test connection' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('drupal: connected');
    await page.getByRole('button', { name: 'Remove' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Remove' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toContain('Removed drupal');
    await expect.poll(() => page.getByTestId('empty-state').textContent()).toContain('No instances yet');
    expect(await t.db.models.ConnectorInstance.countDocuments({ _id: 'drupal' })).toBe(0);
  });
});
