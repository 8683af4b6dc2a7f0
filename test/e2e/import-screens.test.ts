import path from 'node:path';
import { createUserStore } from '@service/core/auth';
import { useTestDatabase } from '@service/core/testing';
import { strToU8, zipSync } from 'fflate';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { artifactsDir, launchChromium } from '../helpers/browser.ts';
import { packageFiles, startGithubDouble, type GithubDouble } from '../helpers/github-double.ts';
import { startService, type RunningService } from '../helpers/service-process.ts';

const t = useTestDatabase();
let service: RunningService;
let browser: Browser;
let github: GithubDouble;
let page: Page;

beforeAll(async () => {
  await createUserStore(t.db.models).create({ email: 'ops@acme.test', password: 'correct horse battery', role: 'admin' });
  github = await startGithubDouble();
  [service, browser] = await Promise.all([
    startService({ mongodbUri: t.uri, env: { SERVICE_VENDOR_SCOPE: '@acme', SERVICE_GITHUB_API_URL: github.apiUrl, SERVICE_IMPORT_SYNC_ENABLED: 'false' } }),
    launchChromium(),
  ]);
  page = await browser.newPage();
  await page.goto(`${service.url}/sign-in`);
  await page.getByLabel('Email').fill('ops@acme.test');
  await page.getByLabel('Password').fill('correct horse battery');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${service.url}/administration`);
});

// The suite comes second since vitest 4.1 (the first argument holds fixtures, read by destructuring).
// eslint-disable-next-line no-empty-pattern
afterAll(async ({}, suite) => {
  if (suite.tasks.some((task) => task.result?.state === 'fail')) console.error(service?.output());
  await browser?.close();
  await service?.stop();
  await github?.close();
});

/** Waits for the import job page the last action led to, until its state is one of `states`. */
async function importJob(states: RegExp): Promise<string[]> {
  await page.waitForURL((url) => /\/administration\/imports\/[a-f0-9]{24}$/.test(url.pathname));
  const jobId = new URL(page.url()).pathname.split('/').pop()!;
  await page.locator(`h1[data-job-id="${jobId}"]`).waitFor();
  await expect.poll(() => page.getByTestId('job-state').textContent(), { timeout: 30_000 }).toMatch(states);
  return page.getByRole('list', { name: 'Steps' }).getByRole('listitem').evaluateAll((items) => items.map((li) => li.getAttribute('aria-label') ?? ''));
}

describe('the Import page', () => {
  it('imports a zip whose license must be acknowledged, then shows where it came from', async () => {
    await page.getByRole('link', { name: 'Import extensions' }).click();
    await page.getByRole('tab', { name: 'From a zip file' }).click();
    const files = packageFiles({ name: '@acme/copyleft-faq', version: '1.0.0', license: 'GPL-3.0-only', licenseText: 'GNU GENERAL PUBLIC LICENSE\nVersion 3, 29 June 2007' });
    const zip = Buffer.from(zipSync(Object.fromEntries(Object.entries(files).map(([name, text]) => [`copyleft-faq/${name}`, strToU8(text)]))));
    await page.getByLabel('Zip file', { exact: true }).setInputFiles({ name: 'copyleft-faq.zip', mimeType: 'application/zip', buffer: zip });
    await page.getByRole('button', { name: 'Upload and import' }).click();

    const steps = await importJob(/awaiting-confirmation/);
    expect(steps).toEqual(['Download: done', 'Unpack: done', 'Compile: done', 'Review: done', 'License: waiting', 'Install: waiting']);
    expect(await page.getByLabel('License text').textContent()).toContain('GNU GENERAL PUBLIC LICENSE');
    expect(await page.getByLabel('package.json').textContent()).toContain('"name": "@acme/copyleft-faq"');
    await page.screenshot({ path: path.join(artifactsDir, 'import-license.png'), fullPage: true });

    // The checkbox is required: the browser will not send the form without it.
    await page.getByRole('button', { name: 'Acknowledge and install' }).click();
    expect(await page.getByTestId('job-state').textContent()).toBe('awaiting-confirmation');
    await page.getByLabel(/I have read the license terms/).check();
    await page.getByRole('button', { name: 'Acknowledge and install' }).click();
    await expect.poll(() => page.getByTestId('job-state').textContent()).toBe('succeeded');
    expect(await page.getByRole('listitem', { name: /^License: done/ }).textContent()).toMatch(/acknowledged by ops@acme.test/);

    await page.getByRole('link', { name: 'Open the extension' }).click();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('@acme/copyleft-faq');
    expect(await page.getByTestId('imported-source').textContent()).toBe('zip');
    expect(await page.getByRole('table', { name: 'Sync history' }).locator('tr[data-outcome="installed"]').count()).toBe(1);
  });

  it('imports from GitHub with automatic updates, and Update says when nothing moved', async () => {
    github.setRef('acme-labs', 'glossary', 'main', github.commit('acme-labs', 'glossary', packageFiles({ name: '@acme/glossary', version: '1.0.0', folder: 'agent' })));
    await page.getByRole('link', { name: 'Import extensions' }).click();
    await page.getByLabel('Repository URL').fill(`${github.apiUrl}/acme-labs/glossary`);
    await page.getByLabel('Branch, tag or commit').fill('main');
    await page.getByLabel('Folder').fill('agent');
    await page.getByLabel('Updates').selectOption('auto');
    await page.getByRole('button', { name: 'Import from GitHub' }).click();
    expect(await importJob(/succeeded|failed/)).toEqual(['Download: done', 'Unpack: done', 'Compile: done', 'Review: done', 'License: done', 'Install: done']);

    await page.getByRole('link', { name: 'Open the extension' }).click();
    expect(await page.getByTestId('update-policy').textContent()).toBe('auto');
    await page.getByRole('button', { name: 'Update', exact: true }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toMatch(/Already up to date \(commit [0-9a-f]{7}\)/);
    await page.getByLabel('Updates').selectOption('manual');
    await page.getByRole('button', { name: 'Save policy' }).click();
    await expect.poll(() => page.getByTestId('update-policy').textContent()).toBe('manual');
    await page.screenshot({ path: path.join(artifactsDir, 'imported-extension.png'), fullPage: true });
  });

  it('drafts an agent in a chat, shows its files, and installs it', async () => {
    await page.getByRole('link', { name: 'Import extensions' }).click();
    await page.getByRole('tab', { name: 'From a chat' }).click();
    await page.getByLabel('Message').fill('An agent that writes release notes.\nset slug to "release-notes"\nset name to "Release notes"\nset description to "Writes release notes from a changelog."');
    await page.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => page.getByRole('log', { name: 'Conversation' }).textContent()).toContain('[scripted] Applying 3 edits');
    expect(await page.getByRole('status').textContent()).toContain('Not ready yet');
    expect(await page.getByRole('button', { name: 'Review and install' }).count()).toBe(0);
    await page.getByLabel('Message').fill('set instructions to "Group changes by feature."; set license to "MIT"');
    await page.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('The draft passes review.');
    expect(await page.getByLabel('flow.json').textContent()).toContain('"instructions": "Group changes by feature."');
    await page.screenshot({ path: path.join(artifactsDir, 'import-chat.png'), fullPage: true });
    await page.getByRole('button', { name: 'Review and install' }).click();
    await importJob(/succeeded/);
    await page.getByRole('link', { name: 'Open the extension' }).click();
    expect(await page.getByTestId('imported-source').textContent()).toBe('chat');
  });
});
