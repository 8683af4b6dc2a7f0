import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { createAuditLog } from '@service/core/audit';
import { useTestDatabase } from '@service/core/testing';
import { testServices } from '@service/core/testing/services';
import { createMemoryLogger } from '@service/core/log';
import { createPublishJobs } from '@service/core/registry';
import { DomainError } from '@service/core/errors';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installExampleAgents } from '../helpers/a2a.ts';
import { artifactsDir, launchChromium, logCspViolations } from '../helpers/browser.ts';
import { signInCookie, startService, type RunningService } from '../helpers/service-process.ts';

/**
 * Issue 31, "see what every run did": the run page's timeline and the jobs page, in Chromium at
 * a desktop and a phone width, with axe. The runs are made in this process against the
 * service's database: one through the real start and answer paths (scripted LLM), one whose
 * step timing, LLM usage, pause answerer and remote task are appended through the event log in
 * the shapes the executor writes them (core/src/runs/model.ts; usage accounting writes them
 * there, this branch only reads them).
 */
const t = useTestDatabase();
let service: RunningService;
let browser: Browser;
let cookie: string;
let realRunId: string;
let usageRunId: string;
let failedJobId: string;

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const WIDTHS = [1280, 390] as const;

beforeAll(async () => {
  await installExampleAgents(t.db, '@acme');
  const services = testServices(t.db);
  const password = 'timeline-admin-password';
  const user = await services.users.create({ email: 'timeline-admin@acme.test', password, role: 'admin' });
  const admin = { type: 'ui', id: user.id, email: user.email, role: 'admin' } as const;
  const { client } = await services.oauth.clients.register(admin, { name: 'Editor desk', allowedAgents: ['*'], permissions: ['list', 'read', 'execute'] });
  await services.peers.register(admin, { id: 'peer-b', name: 'Instance B', baseUrl: 'http://peer-b.example', clientId: 'c', clientSecret: 's'.repeat(32) });

  // A run through the real paths: paused by the editorial review, answered, completed.
  const started = await services.useCases.runs.start(admin, { agent: '@acme/editorial-review', message: { id: crypto.randomUUID(), role: 'user', parts: [{ type: 'text', text: 'A draft about two instances. It needs a teaser.' }] } });
  await started.execution;
  realRunId = started.run.id;
  await services.useCases.runs.answer(admin, realRunId, { screenId: 'approve-summary', values: { approved: true } });
  for (let i = 0; i < 100 && (await services.runs.get(realRunId))?.state !== 'completed'; i++) await new Promise((resolve) => setTimeout(resolve, 100));

  // A run with what usage accounting records: created as the executor creates it, then its events appended as the executor appends them.
  const { run } = await services.runs.create({ type: 'a2a', id: `oauth:${client.clientId}`, clientId: client.clientId }, {
    agent: '@acme/editorial-review',
    message: { id: crypto.randomUUID(), role: 'user', parts: [{ type: 'text', text: `Review this: ${'long input '.repeat(60)}` }] },
    working: true,
  });
  usageRunId = run.id;
  await t.db.models.Run.collection.updateOne({ _id: run.id as never }, { $set: { traceparent: `00-${TRACE_ID}-00f067aa0ba902b7-01` } });
  const start = Date.parse(run.createdAt);
  const time = (ms: number) => new Date(start + ms).toISOString();
  await services.eventLog.appendAll(run.id, [
    {
      type: 'step',
      index: 0,
      stepId: 'summarize',
      output: 'A summary of the draft.',
      kind: 'llm',
      startedAt: time(100),
      durationMs: 2_400,
      attempts: 2,
      calls: [
        { provider: 'openai-compatible', model: 'model-large', inputTokens: 1_200, outputTokens: 300, durationMs: 1_000, costUsd: 0.0125 },
        { provider: 'openai-compatible', model: 'model-large', inputTokens: 800, outputTokens: 34, durationMs: 1_200, costUsd: 0.0075 },
      ],
    },
    { type: 'status', final: true, status: { state: 'input-required', timestamp: time(2_600) }, interrupt: { stepId: 'approve', screenId: 'approve-summary', title: 'Approve the summary', schema: { type: 'object' } } },
  ]);
  await services.eventLog.appendAll(run.id, [
    { type: 'status', final: false, status: { state: 'working', timestamp: time(4_000) }, answer: { screenId: 'approve-summary', values: { approved: true, note: 'ship it' }, stepId: 'approve', stepIndex: 1, by: { type: 'ui', id: user.id } } },
    { type: 'step', index: 2, stepId: 'ask-peer', output: { teaser: 'Two instances, one agent.' }, kind: 'call', startedAt: time(4_100), durationMs: 900, attempts: 1, remote: { peerId: 'peer-b', taskId: 'remote-task-7', usage: { calls: 2, inputTokens: 1_500, outputTokens: 120, costUsd: 0.0061 } } },
    { type: 'status', final: true, status: { state: 'completed', timestamp: time(65_000) } },
  ]);

  // A publish that fails at its review step, through the publish job runner the registry uses.
  const jobs = createPublishJobs({ models: t.db.models, logger: createMemoryLogger(), audit: createAuditLog(t.db.models, createMemoryLogger()) });
  const failed = await jobs.start(admin, { extensionId: '0123456789abcdef01234567', packageName: '@acme/broken', operation: 'publish', destination: 'private' }, async (progress) => {
    await progress('compile', 'done');
    await progress('review', 'running');
    throw new DomainError('REVIEW_FAILED', 'Review found 1 problem(s)');
  });
  failedJobId = (await failed.done).id;

  [service, browser] = await Promise.all([
    startService({ mongodbUri: t.uri, env: { SERVICE_VENDOR_SCOPE: '@acme', SERVICE_TRACE_UI_URL: 'https://jaeger.example/trace/{traceId}' } }),
    launchChromium(),
  ]);
  cookie = await signInCookie(service.url, user.email, password);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

async function open(pathname: string, width: number): Promise<{ page: Page; violations: string[]; overflow: number }> {
  const context = await browser.newContext({ viewport: { width, height: 800 } });
  const [name, value] = cookie.split('=') as [string, string];
  await context.addCookies([{ name, value, url: service.url }]);
  const page = await context.newPage();
  await logCspViolations(page);
  const response = await page.goto(`${service.url}${pathname}`, { waitUntil: 'networkidle' });
  expect(response?.status(), pathname).toBe(200);
  await page.locator('html[data-js]').waitFor({ state: 'attached', timeout: 10_000 });
  const axe = await new AxeBuilder({ page }).analyze();
  const violations = axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')}`);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  await page.screenshot({ path: path.join(artifactsDir, 'pages', `${width}${pathname.split('?')[0]!.replaceAll('/', '_')}.png`), fullPage: true });
  return { page, violations, overflow };
}

describe('the run timeline and the jobs page', () => {
  for (const width of WIDTHS) {
    it(`at ${width} px: a run's times, duration, steps with usage, who answered, the trace and the peer's task`, async () => {
      const { page, violations, overflow } = await open(`/administration/runs/${usageRunId}`, width);
      expect(violations).toEqual([]);
      expect(overflow).toBeLessThanOrEqual(0);
      const facts = page.getByRole('main');
      expect(await page.getByTestId('run-duration').textContent()).toBe('1 min 05 s');
      const text = (await facts.textContent()) ?? '';
      expect(text).toContain('Editor desk (A2A client)');
      // The totals, summed from the steps (this run's head has no rollup).
      expect(text).toContain('2,000 in / 334 out tokens · $0.0200');
      const timeline = page.getByRole('list', { name: 'Timeline' });
      const step = timeline.locator('li[data-entry="step"]').first();
      const stepText = (await step.textContent()) ?? '';
      expect(stepText).toContain('summarize');
      expect(stepText).toContain('2.4 s');
      expect(stepText).toContain('2 attempts (1 retry)');
      expect(stepText).toContain('model-large');
      expect(stepText).toContain('2,000 in / 334 out tokens · $0.0200');
      const pause = timeline.locator('li[data-entry="pause"]');
      expect(await pause.textContent()).toContain('Approve the summary');
      expect(await pause.getByTestId('pause-answer').textContent()).toContain('timeline-admin@acme.test (user)');
      expect(await pause.getByTestId('pause-answer').textContent()).toContain('ship it');
      expect(await page.getByRole('link', { name: 'Open the trace' }).getAttribute('href')).toBe(`https://jaeger.example/trace/${TRACE_ID}`);
      expect(await timeline.getByRole('link', { name: /task remote-task-7 on Instance B/ }).getAttribute('href')).toBe('http://peer-b.example/administration/runs/remote-task-7');
      expect(await timeline.getByTestId('remote-usage').textContent()).toBe(' (the peer reported 1,500 in / 120 out tokens · $0.0061, 2 LLM calls)');
      // The long input is a few words, the rest behind a <details>.
      const input = page.locator('details').filter({ hasText: 'Review this:' }).first();
      expect(await input.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(false);
      await page.context().close();
    }, 120_000);

    it(`at ${width} px: a run made through the real paths shows its pause, answer and end, and no usage it has not got`, async () => {
      const { page, violations } = await open(`/administration/runs/${realRunId}`, width);
      expect(violations).toEqual([]);
      const text = (await page.getByRole('main').textContent()) ?? '';
      // Its steps recorded their calls (the scripted provider reports no tokens) and who answered.
      expect(text).toMatch(/Usage0 in \/ 0 out tokens \(\d+ LLM calls?\)/);
      expect(text).not.toContain('Open the trace');
      const pause = page.getByRole('list', { name: 'Timeline' }).locator('li[data-entry="pause"]');
      expect(await pause.getByTestId('pause-answer').textContent()).toContain('"approved": true');
      // Answered through the real path: who answered is recorded.
      expect(await pause.textContent()).toContain('admin@');
      // Approved: the flow's `not-approved` reply step did not run, and says so rather than showing an output of null.
      const skipped = page.getByRole('list', { name: 'Timeline' }).locator('li[data-entry="step"]').filter({ hasText: 'not-approved' });
      expect(await skipped.textContent()).toContain('Not run: its condition did not hold.');
      expect(await skipped.textContent()).not.toContain('Output');
      expect(await page.getByTestId('run-duration').count()).toBe(1);
      await page.context().close();
    }, 120_000);

    it(`at ${width} px: the jobs page lists the failed publish with its failing step and links to it`, async () => {
      const { page, violations, overflow } = await open('/administration/jobs?kind=publish&state=failed', width);
      expect(violations).toEqual([]);
      expect(overflow).toBeLessThanOrEqual(0);
      const row = page.locator(`tr[data-job-id="${failedJobId}"]`);
      expect(await row.getByTestId('job-failure').textContent()).toBe('Review: Review found 1 problem(s)');
      expect(await row.getByRole('link').getAttribute('href')).toBe(`/administration/jobs/${failedJobId}`);
      expect(await page.locator('tbody tr').count()).toBe(1);
      await page.context().close();
    }, 120_000);
  }

  it('the jobs page is in the navigation, and its filters work without JavaScript', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, javaScriptEnabled: false });
    const [name, value] = cookie.split('=') as [string, string];
    await context.addCookies([{ name, value, url: service.url }]);
    const page = await context.newPage();
    await page.goto(`${service.url}/administration`);
    await page.getByRole('navigation', { name: 'Administration' }).getByRole('link', { name: 'Jobs' }).click();
    await page.waitForURL(`${service.url}/administration/jobs`);
    await page.getByLabel('Kind').selectOption('publish');
    await page.getByLabel('State').selectOption('failed');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/kind=publish&state=failed/);
    expect(await page.locator(`tr[data-job-id="${failedJobId}"]`).count()).toBe(1);
    await context.close();
  }, 60_000);
});
