import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { installFlowAgent, useTestDatabase } from '@service/core/testing';
import { testServices } from '@service/core/testing/services';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installExampleAgents } from '../helpers/a2a.ts';
import { artifactsDir, launchChromium, logCspViolations } from '../helpers/browser.ts';
import { signInCookie, startService, type RunningService } from '../helpers/service-process.ts';

/**
 * An agent's tool call that waits for a person, approved on the run page in Chromium: the page
 * shows the tool and its arguments, the admin allows it with changed arguments or denies it with
 * a reason, the run goes on in the built service, and the timeline shows the call, its result and
 * who decided. At a desktop and a phone width, with axe.
 */
const t = useTestDatabase();
let service: RunningService;
let browser: Browser;
let cookie: string;
let admin: { type: 'ui'; id: string; email: string; role: 'admin' };

beforeAll(async () => {
  await installExampleAgents(t.db, '@acme');
  await installFlowAgent(t.db, '@acme', '@acme/researcher', [{ kind: 'llm', id: 'research', prompt: '{{input}}' }], [], {
    skills: ['@acme/summarizer'],
    tools: [{ tool: '@acme/summarizer', approval: 'always' }],
  });
  const services = testServices(t.db);
  const password = 'approval-admin-password';
  const user = await services.users.create({ email: 'approver@acme.test', password, role: 'admin' });
  admin = { type: 'ui', id: user.id, email: user.email, role: 'admin' };
  [service, browser] = await Promise.all([startService({ mongodbUri: t.uri, env: { SERVICE_VENDOR_SCOPE: '@acme' } }), launchChromium()]);
  cookie = await signInCookie(service.url, user.email, password);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

/** A researcher run paused before its summarizer call (started here, against the service's database). */
async function pausedRun(text: string): Promise<string> {
  const services = testServices(t.db);
  const { run, execution } = await services.useCases.runs.start(admin, { agent: '@acme/researcher', message: { id: crypto.randomUUID(), role: 'user', parts: [{ type: 'text', text: `use acme__summarizer with {"input":"${text}"}` }] } });
  await execution;
  expect((await services.runs.get(run.id))!.state).toBe('input-required');
  return run.id;
}

async function open(runId: string, width: number): Promise<Page> {
  const context = await browser.newContext({ viewport: { width, height: 800 } });
  const [name, value] = cookie.split('=') as [string, string];
  await context.addCookies([{ name, value, url: service.url }]);
  const page = await context.newPage();
  await logCspViolations(page);
  expect((await page.goto(`${service.url}/administration/runs/${runId}`, { waitUntil: 'networkidle' }))?.status()).toBe(200);
  await page.locator('html[data-js]').waitFor({ state: 'attached', timeout: 10_000 });
  const axe = await new AxeBuilder({ page }).analyze();
  expect(axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
  expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
  await page.screenshot({ path: path.join(artifactsDir, 'pages', `${width}_tool-approval.png`), fullPage: true });
  return page;
}

describe('approving a tool call on the run page', () => {
  it('at 1280 px: shows the call, is allowed with changed arguments, and the timeline shows the call, its result and who allowed it', async () => {
    const runId = await pausedRun('Asked for. Before the change.');
    const page = await open(runId, 1280);
    const form = page.getByRole('form', { name: 'Allow @acme/summarizer to run?' });
    expect(await form.textContent()).toContain('The agent wants to call @acme/summarizer (an agent)');
    const args = form.getByLabel(/Arguments \(JSON/);
    expect(JSON.parse(await args.inputValue())).toEqual({ input: 'Asked for. Before the change.' });
    await args.fill(JSON.stringify({ input: 'Changed on the page. Shorter.' }));
    await form.getByRole('button', { name: 'Allow the call' }).click();
    await expect.poll(async () => (await testServices(t.db).runs.get(runId))?.state, { timeout: 20_000 }).toBe('completed');
    await page.reload({ waitUntil: 'networkidle' });
    const tool = page.getByRole('list', { name: 'Timeline' }).locator('li[data-entry="tool"]');
    const text = (await tool.textContent()) ?? '';
    expect(text).toContain('@acme/summarizer');
    expect(text).toContain('answered');
    expect(text).toContain('Changed on the page. Shorter.');
    expect(await tool.getByTestId('tool-approval').textContent()).toBe('Allowed with changed arguments by approver@acme.test (user)');
    await page.context().close();
  }, 120_000);

  it('at 390 px: is denied with a reason the agent is told, and no call is made', async () => {
    const runId = await pausedRun('Not this one.');
    const page = await open(runId, 390);
    const form = page.getByRole('form', { name: 'Allow @acme/summarizer to run?' });
    await form.getByLabel(/Why not/).fill('Out of scope.');
    await form.getByRole('button', { name: 'Deny it' }).click();
    await expect.poll(async () => (await testServices(t.db).runs.get(runId))?.state, { timeout: 20_000 }).toBe('completed');
    const run = (await testServices(t.db).runs.get(runId))!;
    expect(run.artifacts[0]!.parts[0]).toEqual({ type: 'text', text: '[scripted] acme__summarizer was not allowed: Out of scope.' });
    await page.reload({ waitUntil: 'networkidle' });
    const tool = page.getByRole('list', { name: 'Timeline' }).locator('li[data-entry="tool"]');
    expect(await tool.getByTestId('tool-approval').textContent()).toBe('Denied by approver@acme.test (user): Out of scope.');
    expect(await tool.textContent()).toContain('denied');
    await page.context().close();
  }, 120_000);
});
