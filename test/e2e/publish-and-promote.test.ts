import path from 'node:path';
import { createUserStore } from '@service/core/auth';
import { useTestDatabase } from '@service/core/testing';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { artifactsDir, launchChromium } from '../helpers/browser.ts';
import { npmView } from '../helpers/npm-cli.ts';
import { startService, type RunningService } from '../helpers/service-process.ts';
import { startVerdaccio, type RunningRegistry } from '../helpers/verdaccio.ts';

const t = useTestDatabase();
let service: RunningService;
let browser: Browser;
let privateRegistry: RunningRegistry;
let publicRegistry: RunningRegistry;

beforeAll(async () => {
  await createUserStore(t.db.models).create({ email: 'ops@acme.test', password: 'correct horse battery', role: 'admin' });
  [privateRegistry, publicRegistry, service, browser] = await Promise.all([
    startVerdaccio({ users: ['acme'], packages: { '@acme/*': { access: 'acme', publish: 'acme' } } }),
    startVerdaccio({ users: ['acme-publisher'], packages: { '**': { access: '$all', publish: '$authenticated' } } }),
    startService({ mongodbUri: t.uri, env: { SERVICE_VENDOR_SCOPE: '@acme' } }),
    launchChromium(),
  ]);
});

// The suite comes second since vitest 4.1 (the first argument holds fixtures, read by destructuring).
// eslint-disable-next-line no-empty-pattern
afterAll(async ({}, suite) => {
  if (suite.tasks.some((task) => task.result?.state === 'fail')) console.error(service?.output());
  await browser?.close();
  await service?.stop();
  await Promise.all([privateRegistry?.stop(), publicRegistry?.stop()]);
});

async function waitForJob(page: Page, previousUrl = ''): Promise<string[]> {
  await page.waitForURL((url) => /\/administration\/jobs\/[a-f0-9]{24}$/.test(url.pathname) && url.toString() !== previousUrl);
  // The URL can change before the new job's page is rendered: wait for that job's own heading.
  const jobId = new URL(page.url()).pathname.split('/').pop()!;
  await page.locator(`h1[data-job-id="${jobId}"]`).waitFor();
  await expect.poll(() => page.getByTestId('job-state').textContent(), { timeout: 30_000 }).toMatch(/succeeded|failed/);
  return page.getByRole('list', { name: 'Steps' }).getByRole('listitem').evaluateAll((items) => items.map((li) => li.getAttribute('aria-label') ?? ''));
}

describe('publish and promote from the admin UI', () => {
  it('configures registries, publishes the example package with live steps, then promotes it', async () => {
    const page = await browser.newPage();
    await page.goto(`${service.url}/sign-in`);
    await page.getByLabel('Email').fill('ops@acme.test');
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${service.url}/administration`);

    await page.getByRole('navigation', { name: 'Administration' }).getByRole('link', { name: 'Registries' }).click();
    await page.locator('#routingMode').selectOption('scope-based');
    await page.locator('[id="public.registryUrl"]').fill(publicRegistry.url);
    await page.locator('[id="public.publishToken"]').fill(publicRegistry.tokens['acme-publisher']!);
    await page.getByLabel('Private destination').check();
    await page.locator('[id="private.id"]').fill('acme-private');
    await page.locator('[id="private.registryUrl"]').fill(privateRegistry.url);
    await page.locator('[id="private.publishToken"]').fill(privateRegistry.tokens.acme!);
    await page.locator('[id="private.readToken"]').fill(privateRegistry.tokens.acme!);
    await page.getByRole('button', { name: 'Save registry settings' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Registry settings saved.');
    await page.reload();
    const html = await page.content();
    for (const token of [publicRegistry.tokens['acme-publisher']!, privateRegistry.tokens.acme!]) expect(html).not.toContain(token);
    expect(await page.locator('[id="public.publishToken"]').getAttribute('placeholder')).toBe('set — type to replace');

    await page.getByRole('link', { name: 'Agents' }).click();
    await page.getByRole('button', { name: 'summarizer' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Compiled @acme/summarizer@1.0.0');
    await page.getByRole('link', { name: 'Publish…' }).click();
    await page.getByLabel('Destination').selectOption('private');
    await page.getByRole('button', { name: 'Publish' }).click();
    const publishSteps = await waitForJob(page);
    expect(publishSteps).toEqual([
      'Compile: done',
      'Review: done',
      'Pack tarball: done',
      'Resolve destination: done',
      'Publish to registry: done',
      'Update origin: done',
      'Audit: done',
    ]);
    expect(await page.getByRole('status').textContent()).toContain(`@acme/summarizer@1.0.1 to ${privateRegistry.url}`);
    await page.screenshot({ path: path.join(artifactsDir, 'publish-job.png'), fullPage: true });

    const publishJobUrl = page.url();
    await page.getByRole('button', { name: 'Promote to public' }).click();
    // One-way, so it asks first, in the page's own dialog.
    await page.getByRole('alertdialog').getByRole('button', { name: 'Promote to public' }).click();
    const promoteSteps = await waitForJob(page, publishJobUrl);
    expect(promoteSteps).toEqual(['Pack tarball: done', 'Resolve destination: done', 'Publish to registry: done', 'Update origin: done', 'Audit: done']);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Promoting @acme/summarizer');

    await page.getByRole('link', { name: 'Marketplace' }).first().click();
    const row = page.locator('tr[data-package="@acme/summarizer"]');
    await expect.poll(() => row.getByTestId('visibility').textContent()).toBe('public');
    const demote = row.getByRole('button', { name: /Make private/ });
    expect(await demote.isDisabled()).toBe(true);
    expect(await row.getByTestId('locked-reason').textContent()).toMatch(/one-way/);
    await page.screenshot({ path: path.join(artifactsDir, 'marketplace.png'), fullPage: true });

    expect(await npmView(publicRegistry.url, publicRegistry.tokens['acme-publisher']!, '@acme/summarizer', 'scope')).toMatchObject({ version: '1.0.1' });
  });
});
