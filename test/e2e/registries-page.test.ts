import { createUserStore } from '@service/core/auth';
import { testServices, useTestDatabase } from '@service/core/testing';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/browser.ts';
import { startService, type RunningService } from '../helpers/service-process.ts';

/** Administration › Environment › Registries: the private destination removed after a confirm, the published extension left as it was. */
const t = useTestDatabase();
let service: RunningService;
let browser: Browser;
const admin = { type: 'ui', id: 'admin', email: 'ops@acme.test', role: 'admin' } as const;

beforeAll(async () => {
  await createUserStore(t.db.models).create({ email: admin.email, password: 'correct horse battery', role: 'admin' });
  await testServices(t.db).registry.settings.save(admin, {
    routingMode: 'scope-based',
    public: { registryUrl: 'https://npm.example.com/', publishToken: { action: 'keep' }, readToken: { action: 'keep' } },
    private: { id: 'acme-private', registryUrl: 'https://private.example.com/', publishToken: { action: 'replace', value: 'priv-token' }, readToken: { action: 'keep' } },
  });
  [service, browser] = await Promise.all([startService({ mongodbUri: t.uri }), launchChromium()]);
});

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

describe('the Registries page', () => {
  it('removes the private destination after a confirm and says what becomes of what was published there', async () => {
    const page = await browser.newPage();
    await page.goto(`${service.url}/sign-in`);
    await page.getByLabel('Email').fill(admin.email);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${service.url}/administration`);
    await page.goto(`${service.url}/administration/environment/registries`);
    const card = page.getByRole('region', { name: 'Remove the private destination' });
    expect(await card.textContent()).toContain('Extensions already published there stay installed');

    await card.getByRole('button', { name: 'Remove private destination' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Remove' }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain('Private destination removed');
    await expect.poll(() => card.count()).toBe(0);
    expect(await t.db.models.RegistryDestination.countDocuments({ _id: 'acme-private' })).toBe(0);
    expect((await t.db.models.RegistryDeployment.findById('default').lean())?.privateDestinationId).toBeNull();
  });
});
