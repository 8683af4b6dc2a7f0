import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchAccessToken } from '../helpers/a2a.ts';
import { launchChromium } from '../helpers/browser.ts';
import { startService, type RunningService } from '../helpers/service-process.ts';

/**
 * The first hour as a newcomer meets it (issue 13): the embedded default on a fresh data
 * directory (its own database and registry, nothing configured), then in the browser: the
 * checklist, publishing the examples to the embedded registry, A2A switched on, a client
 * registered, and a generic A2A 1.0 SendMessage answered by a published agent.
 */
let service: RunningService;
let browser: Browser;

/** The shell block of a guide's "first call" section, with its three placeholders set. */
function firstCallScript(file: string, values: { BASE: string; CLIENT_ID: string; SKILL: string }): string {
  const text = readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');
  const block = /first (?:A2A )?call\n[\s\S]*?```sh\n([\s\S]*?)```/.exec(text)?.[1];
  if (!block) throw new Error(`${file} has no first-call block`);
  return block.replace(/^(BASE|CLIENT_ID|SKILL)=\S+/gm, (_line, name: keyof typeof values) => `${name}='${values[name]}'`);
}

/** Runs a guide's first call as a user pastes it: the secret typed on its standard input. */
async function runFirstCall(script: string, secret: string): Promise<string> {
  const child = execFile('bash', ['-e', '-c', script], { timeout: 30_000 });
  child.stdin!.end(`${secret}\n`);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  if (code !== 0) throw new Error(`the first call exited ${code}: ${stderr}`);
  return stdout;
}

/** One data directory for both starts, as a user's `.data` (the service generates and keeps its own secrets there). */
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'first-hour-'));
// Private addresses refused, as production's default is: the embedded registry is the service's own and stays reachable.
const start = () => startService({ dataDir, env: { SERVICE_VENDOR_SCOPE: '@newcomer', SERVICE_OUTBOUND_ALLOW_PRIVATE: 'false' } });

beforeAll(async () => {
  [service, browser] = await Promise.all([start(), launchChromium()]);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the first hour on the embedded default', () => {
  it('publishes the examples to the embedded registry and answers an A2A client, with nothing set up by hand', async () => {
    expect(service.output()).toMatch(/embedded registry \(Verdaccio\) on http:\/\/127\.0\.0\.1:\d+\//);
    // The first admin's credentials are printed once, just after the listening line.
    await expect.poll(() => /password:\s+\S+/.test(service.output())).toBe(true);
    const email = /email:\s+(\S+)/.exec(service.output())![1]!;
    const password = /password:\s+(\S+)/.exec(service.output())![1]!;
    // Before: the AgentCard has no skills.
    expect(((await (await fetch(`${service.url}/.well-known/agent-card.json`)).json()) as { skills: unknown[] }).skills).toEqual([]);

    const page = await browser.newPage();
    await page.goto(`${service.url}/sign-in`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${service.url}/administration`);
    const checklist = page.getByRole('list', { name: 'Getting started' });
    expect(await checklist.textContent()).toMatch(/Registry: the embedded one/);

    // Marks this document: a full reload would lose the mark.
    await page.evaluate(() => Object.assign(window, { notReloaded: true }));
    expect(await page.getByTestId('overview-counts').textContent()).toMatch(/^0 agents in the AgentCard/);
    await page.getByRole('button', { name: 'Publish the example agents' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toMatch(/Publishing the example agents: @newcomer\/summarizer, @newcomer\/editorial-review, @newcomer\/site-editor, @newcomer\/researcher/);
    // The Overview follows its jobs: the count changes when they end, with no reload (issue 32).
    await expect.poll(() => page.getByTestId('overview-counts').textContent(), { timeout: 60_000, interval: 500 }).toMatch(/^4 agents in the AgentCard/);
    expect(await page.getByRole('status').textContent()).toContain('Their jobs have ended');
    expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
    // The jobs succeed, one after the other, and the card lists the agents.
    await expect
      .poll(async () => ((await (await fetch(`${service.url}/.well-known/agent-card.json`)).json()) as { skills: { id: string }[] }).skills.map((s) => s.id).sort(), { timeout: 60_000, interval: 500 })
      .toEqual(['@newcomer/editorial-review', '@newcomer/researcher', '@newcomer/site-editor', '@newcomer/summarizer']);
    await page.goto(`${service.url}/administration/environment/registries`);
    expect(await page.getByTestId('registry-embedded').textContent()).toMatch(/Embedded/);

    await page.goto(`${service.url}/administration`);
    await page.getByRole('button', { name: 'Turn A2A over HTTP on' }).click();
    await expect.poll(() => page.getByTestId('switch-a2aHttpEnabled').textContent()).toBe('on');
    await page.goto(`${service.url}/administration/a2a/clients`);
    await page.getByLabel('Name').fill('A first peer');
    await page.getByRole('button', { name: 'Register' }).click();
    const secret = (await page.getByTestId('client-secret').textContent())!;
    const clientId = (await page.getByRole('status').locator('code').first().textContent())!;

    const token = await fetchAccessToken(`${service.url}/api/oauth/token`, clientId, secret);
    const answer = await fetch(`${service.url}/a2a/newcomer/summarizer`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'a2a-version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'The first hour went well. It did.' }] } } }),
    });
    const body = (await answer.json()) as { result?: { task: { status: { state: string }; artifacts: { parts: { text: string }[] }[] } } };
    expect(body.result?.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(body.result?.task.artifacts[0]!.parts[0]!.text).toContain('The first hour went well');

    // The first agent published became the default: a generic client names none, on the host's endpoint.
    const generic = await fetch(`${service.url}/api/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'a2a-version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'SendMessage', params: { message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'No agent named. Still fine.' }] } } }),
    });
    expect(((await generic.json()) as { result?: { task: { status: { state: string }; metadata: { agent: string } } } }).result?.task).toMatchObject({ status: { state: 'TASK_STATE_COMPLETED' }, metadata: { agent: '@newcomer/summarizer' } });

    // The guides' copy-and-paste first call works as written (README and docs/a2a.md say the same).
    const values = { BASE: service.url, CLIENT_ID: clientId, SKILL: '@newcomer/summarizer' };
    expect(firstCallScript('README.md', values)).toBe(firstCallScript('docs/a2a.md', values));
    const pasted = JSON.parse(await runFirstCall(firstCallScript('docs/a2a.md', values), secret)) as { result?: { task: { status: { state: string }; artifacts: { parts: { text: string }[] }[] } } };
    expect(pasted.result?.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(pasted.result?.task.artifacts[0]!.parts[0]!.text).toContain('the first call works');

    // The Overview counts it all: the client, the runs of the day.
    await page.goto(`${service.url}/administration`);
    expect(await page.getByRole('list', { name: 'Getting started' }).textContent()).toContain('A2A clients registered: 1');
    expect(await page.getByRole('list', { name: 'Getting started' }).textContent()).toContain('Default agent (where an A2A message naming no agent goes): @newcomer/summarizer');
    expect(await page.getByTestId('overview-counts').textContent()).toMatch(/^4 agents in the AgentCard · 3 runs in the last day$/);

    // Once more, as a user who presses it again: nothing fails, nothing goes back a version (issue 32).
    await page.getByRole('button', { name: 'Publish the example agents' }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toMatch(/Already published as shipped: @newcomer\/editorial-review@1\.0\.1, @newcomer\/researcher@1\.0\.1, @newcomer\/site-editor@1\.0\.1, @newcomer\/summarizer@1\.0\.1\./);
    await page.goto(`${service.url}/administration/agents`);
    await page.getByRole('button', { name: 'summarizer', exact: true }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toBe('Compiled @newcomer/summarizer@1.0.1');
    const versions = await page.getByRole('table', { name: 'Authored agents' }).locator('tbody tr').evaluateAll((rows) => rows.map((row) => [row.querySelector('strong')?.textContent, row.children[1]?.textContent]));
    expect(versions.sort()).toEqual([['@newcomer/editorial-review', '1.0.1'], ['@newcomer/researcher', '1.0.1'], ['@newcomer/site-editor', '1.0.1'], ['@newcomer/summarizer', '1.0.1']]);

    // A second start on the same data directory (same secrets, data and registry storage), and the first hour again.
    await service.stop();
    service = await start();
    expect(service.output()).not.toMatch(/password:\s+\S+/);
    await expect
      .poll(async () => ((await (await fetch(`${service.url}/.well-known/agent-card.json`)).json()) as { skills: { id: string }[] }).skills.map((s) => s.id).sort())
      .toEqual(['@newcomer/editorial-review', '@newcomer/researcher', '@newcomer/site-editor', '@newcomer/summarizer']);
    // Still signed in (the session outlives the restart); cookies are per host, not per port.
    await page.goto(`${service.url}/administration`);
    await page.getByRole('button', { name: 'Publish the example agents' }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toMatch(/Already published as shipped: @newcomer\/editorial-review@1\.0\.1, @newcomer\/researcher@1\.0\.1, @newcomer\/site-editor@1\.0\.1, @newcomer\/summarizer@1\.0\.1\./);
    await page.goto(`${service.url}/administration/agents`);
    await page.getByRole('button', { name: 'editorial-review', exact: true }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toBe('Compiled @newcomer/editorial-review@1.0.1');
    const again = JSON.parse(await runFirstCall(firstCallScript('docs/a2a.md', { ...values, BASE: service.url }), secret)) as { result?: { task: { status: { state: string } } } };
    expect(again.result?.task.status.state).toBe('TASK_STATE_COMPLETED');
  }, 240_000);
});
