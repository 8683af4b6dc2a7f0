import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, logCspViolations } from '../helpers/browser.ts';
import { signInCookie, startService, type RunningService } from '../helpers/service-process.ts';

/**
 * The account and users pages as an operator uses them (issue 32), in Chromium: the first admin
 * changes the generated password (their other session ends) and signs in with the new one; then
 * adds a member, makes them an admin, and removes them (their session ends at once). The last
 * admin cannot make themselves a member.
 */
/** Password checks are scrypt derivations on a shared machine: answers can take seconds. */
const POLL = { timeout: 15_000 };
let service: RunningService;
let browser: Browser;
let email = '';
let password = '';

beforeAll(async () => {
  [service, browser] = await Promise.all([startService({}), launchChromium()]);
  const deadline = Date.now() + 20_000;
  while (!/password:\s+\S+/.test(service.output())) {
    if (Date.now() > deadline) throw new Error(`no first-admin banner in: ${service.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  email = /email:\s+(\S+)/.exec(service.output())![1]!;
  password = /password:\s+(\S+)/.exec(service.output())![1]!;
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

/** What /administration answers a cookie: 200 for an admin, 403 for a member, a redirect to sign-in for no session. */
async function administrationStatus(cookie: string): Promise<number> {
  return (await fetch(`${service.url}/administration`, { headers: { cookie }, redirect: 'manual' })).status;
}

async function signIn(page: Page, address: string, secret: string) {
  await page.goto(`${service.url}/sign-in`);
  await page.locator('html[data-js]').waitFor({ state: 'attached' });
  await page.getByLabel('Email').fill(address);
  await page.getByLabel('Password').fill(secret);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

describe('account and users pages', () => {
  it('changes the password (other sessions end) and signs in with the new one', async () => {
    // The start banner says where to change the generated password.
    expect(service.output()).toContain(`change it at ${service.url}/administration/account`);
    const elsewhere = await signInCookie(service.url, email, password);
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await logCspViolations(page);
    await signIn(page, email, password);
    await page.waitForURL(`${service.url}/administration`);

    await page.getByRole('navigation', { name: 'Administration' }).getByRole('link', { name: 'Your account' }).click();
    await page.waitForURL(`${service.url}/administration/account`);
    await expect.poll(() => page.getByRole('table', { name: 'Your sessions' }).locator('tbody tr').count(), POLL).toBe(2);

    await page.getByLabel('Current password').fill('not the password at all');
    await page.getByLabel('New password', { exact: true }).fill('a new password for the admin');
    await page.getByLabel('Repeat the new password').fill('a new password for the admin');
    await page.getByRole('button', { name: 'Change password' }).click();
    await expect.poll(() => page.getByText('The current password is not right').count(), POLL).toBeGreaterThan(0);
    expect(await administrationStatus(elsewhere)).toBe(200);

    await page.getByLabel('Current password').fill(password);
    await page.getByLabel('New password', { exact: true }).fill('a new password for the admin');
    await page.getByLabel('Repeat the new password').fill('a new password for the admin');
    await page.getByRole('button', { name: 'Change password' }).click();
    await expect.poll(() => page.getByText('Password changed. 1 other session was signed out').count(), POLL).toBe(1);
    expect(await page.content()).not.toContain('a new password for the admin');
    expect(await administrationStatus(elsewhere)).toBe(302);
    await expect.poll(() => page.getByRole('table', { name: 'Your sessions' }).locator('tbody tr').count(), POLL).toBe(1);
    await context.close();

    await expect(signInCookie(service.url, email, password)).rejects.toThrow(/sign-in failed/);
    const fresh = await browser.newContext({ viewport: { width: 390, height: 800 } });
    const again = await fresh.newPage();
    await signIn(again, email, 'a new password for the admin');
    await again.waitForURL(`${service.url}/administration`);
    password = 'a new password for the admin';
    await fresh.close();
  }, 120_000);

  it('adds a member with a generated password, makes them an admin, and removes them', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await logCspViolations(page);
    await signIn(page, email, password);
    await page.waitForURL(`${service.url}/administration`);
    await page.goto(`${service.url}/administration/users`);
    await page.locator('html[data-js]').waitFor({ state: 'attached' });

    // The last admin cannot step down.
    const me = page.locator('tr', { hasText: email });
    await me.getByRole('button', { name: 'Make member' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Make member' }).click();
    await expect.poll(() => page.getByText('The last admin cannot be demoted or removed').count(), POLL).toBeGreaterThan(0);

    await page.getByLabel('Email').fill('editor@example.com');
    await page.getByLabel('Role').selectOption('member');
    await page.getByRole('button', { name: 'Add user' }).click();
    const shown = page.getByTestId('user-password');
    await shown.waitFor();
    const generated = (await shown.textContent())!.trim();
    expect(generated).toMatch(/^[\w-]{16}$/);
    const member = await signInCookie(service.url, 'editor@example.com', generated);
    expect(await administrationStatus(member)).toBe(403);

    const row = page.locator('tr', { hasText: 'editor@example.com' });
    await row.getByRole('button', { name: 'Make admin' }).click();
    await expect.poll(() => page.getByText('editor@example.com is now an admin.').count(), POLL).toBe(1);
    expect(await administrationStatus(member)).toBe(200);

    await row.getByRole('button', { name: 'Remove' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Remove' }).click();
    await expect.poll(() => page.getByText('Removed the user; their sessions ended at once.').count(), POLL).toBe(1);
    await expect.poll(() => page.locator('tr', { hasText: 'editor@example.com' }).count(), POLL).toBe(0);
    expect(await administrationStatus(member)).toBe(302);
    await context.close();
  }, 120_000);
});
