import { createUserStore } from '@service/core/auth';
import { useTestDatabase } from '@service/core/testing';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import { artifactsDir, launchChromium } from '../helpers/browser.ts';
import { startService, type RunningService } from '../helpers/service-process.ts';

const t = useTestDatabase();
let service: RunningService;
let browser: Browser;

beforeAll(async () => {
  await createUserStore(t.db.models).create({ email: 'ops@example.com', password: 'correct horse battery', role: 'admin' });
  [service, browser] = await Promise.all([startService({ mongodbUri: t.uri }), launchChromium()]);
});

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

describe('admin sign-in in a real browser', () => {
  it('redirects to sign-in, rejects a wrong password, signs in and shows the Administration shell', async () => {
    const page = await browser.newPage();
    await page.goto(`${service.url}/administration/audit`);
    expect(new URL(page.url()).pathname).toBe('/sign-in');

    await page.getByLabel('Email').fill('ops@example.com');
    await page.getByLabel('Password').fill('wrong password here');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('Invalid email or password');

    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${service.url}/administration/audit`);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Audit log');

    const nav = page.getByRole('navigation', { name: 'Administration' });
    await nav.getByRole('link', { name: 'Overview' }).click();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Administration');
    const account = page.getByRole('button', { name: 'Account: ops@example.com' });
    expect(await account.count()).toBe(1);
    await page.screenshot({ path: path.join(artifactsDir, 'administration.png'), fullPage: true });

    await nav.getByRole('link', { name: 'Audit log' }).click();
    await expect.poll(() => page.locator('td', { hasText: 'session.sign-in' }).count()).toBeGreaterThan(0);

    await account.click();
    expect(await page.getByRole('menu').getByText('Signed in as ops@example.com').count()).toBe(1);
    await page.getByRole('menuitem', { name: 'Sign out' }).click();
    await page.waitForURL(`${service.url}/sign-in`);
    await page.goto(`${service.url}/administration`);
    expect(new URL(page.url()).pathname).toBe('/sign-in');
  });

  it('reports the database on /healthz', async () => {
    const response = await fetch(`${service.url}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ checks: { database: { status: 'up' } } });
  });
});
