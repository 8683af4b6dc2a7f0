import { createUserStore } from '@service/core/auth';
import { useTestDatabase } from '@service/core/testing';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/browser.ts';
import { startService, type RunningService } from '../helpers/service-process.ts';

/**
 * The runtime switches as an admin meets them: the environment gives the first state, the
 * Overview page changes it, and a running service follows within a second, without a restart.
 */
const t = useTestDatabase();
let service: RunningService;
let other: RunningService;
let browser: Browser;

beforeAll(async () => {
  await createUserStore(t.db.models).create({ email: 'ops@example.com', password: 'correct horse battery', role: 'admin' });
  service = await startService({ mongodbUri: t.uri, env: { SERVICE_A2A_HTTP_ENABLED: 'true' } });
  // A second process on the same database, started with the opposite environment: the stored state wins.
  [other, browser] = await Promise.all([startService({ mongodbUri: t.uri, env: { SERVICE_A2A_HTTP_ENABLED: 'false' } }), launchChromium()]);
});

afterAll(async () => {
  await browser?.close();
  await Promise.all([service?.stop(), other?.stop()]);
});

const a2aStatus = async (url: string) => (await fetch(`${url}/api/a2a`, { method: 'POST', body: '{}' })).status;

describe('runtime switches', () => {
  it('turns A2A off and on from the Overview page; every process follows within a second', async () => {
    // On from the first start's environment, in both processes (401: on, but no token).
    expect(await a2aStatus(service.url)).toBe(401);
    expect(await a2aStatus(other.url)).toBe(401);

    const page = await browser.newPage();
    await page.goto(`${service.url}/sign-in`);
    await page.getByLabel('Email').fill('ops@example.com');
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${service.url}/administration`);
    expect(await page.getByTestId('switch-a2aHttpEnabled').textContent()).toBe('on');

    await page.getByRole('button', { name: 'Turn A2A over HTTP off' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toMatch(/A2A over HTTP is now off/);
    await expect.poll(() => page.getByTestId('switch-a2aHttpEnabled').textContent()).toBe('off');
    // At once in the process that made the change, within the one-second cache in the other.
    expect(await a2aStatus(service.url)).toBe(404);
    await expect.poll(() => a2aStatus(other.url), { timeout: 3000, interval: 100 }).toBe(404);

    // The page that depends on the switch says it is off and links to it.
    await page.goto(`${service.url}/administration/a2a/clients`);
    expect(await page.getByRole('note').textContent()).toMatch(/A2A over HTTP is off/);
    await page.getByRole('link', { name: 'Turn it on' }).click();
    await page.getByRole('button', { name: 'Turn A2A over HTTP on' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toMatch(/A2A over HTTP is now on/);
    await expect.poll(() => a2aStatus(other.url), { timeout: 3000, interval: 100 }).toBe(401);

    // The change is audited (by the service process, after it answered: polled).
    const latestFeaturesChange = async () => (await t.db.models.AuditEvent.findOne({ action: 'settings.update', resourceId: 'features' }).sort({ _id: -1 }).lean())?.details;
    await expect.poll(latestFeaturesChange).toMatchObject({ value: { a2aHttpEnabled: true } });

    // The audit page (issue 13 item 7): filtered by action, the actor by email, and a 5 000-character
    // value folded and wrapped, never widening the page.
    await t.db.models.AuditEvent.create({ actorType: 'worker', actorId: 'sweep', action: 'settings.probe', resourceType: 'setting', resourceId: 'x'.repeat(5000), details: { long: 'y'.repeat(5000) }, at: new Date() });
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${service.url}/administration/audit`);
    await page.getByLabel('Action').fill('settings.');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/action=settings\./);
    const rows = page.getByRole('table', { name: 'Audit events' }).locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(3);
    // Rows of one second from two processes have no fixed order among them: find them by content.
    expect(await rows.locator('td:nth-child(2)', { hasText: 'ops@example.com' }).count()).toBe(2);
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    expect(await rows.locator('details').count()).toBe(1);
    // One date format: relative to now once the page runs, the exact time in the tooltip (and in datetime).
    const when = rows.first().locator('time');
    expect(await when.getAttribute('datetime')).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    await expect.poll(() => when.textContent()).toMatch(/^(just now|\d+ min ago)$/);
    await when.hover();
    await expect.poll(() => page.getByRole('tooltip').textContent()).toContain(await when.getAttribute('datetime'));
  });
});
