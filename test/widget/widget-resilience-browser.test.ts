import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import type { Services } from '@service/core';
import { sendWebResponse } from '@service/core/http';
import { testServices, useTestDatabase } from '@service/core/testing';
import { WIDGET_BUNDLE_PATH } from '@service/core/widget';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/browser.ts';
import { startCmsADouble, type CmsADouble } from '../helpers/cms-a-double.ts';

/**
 * The widget in Chromium against the real stream and Undo handlers, served in-process (no web
 * build needed). A message ending in `(<failure>)` makes its stream request fail in one of the
 * ways a network or a broken service can (a message, not a one-shot switch, so a browser's retry
 * fails alike): the widget must always end the turn with a visible error and Send enabled, and
 * the chat must go on. WIDGET_TEST_BUNDLE runs these cases against another build of the bundle.
 */
const FAILURES = ['status-500', 'network-error', 'bad-json-frame', 'bad-shape-frame', 'drop-mid-stream', 'cut-off', 'error-event', 'stall'] as const;
type Failure = (typeof FAILURES)[number];
const failureIn = (text: string | undefined) => FAILURES.find((failure) => text?.endsWith(`(${failure})`)) ?? null;

const t = useTestDatabase();
const slug = 'cms-a-content-editor';
let site: CmsADouble;
let services: Services;
let browser: Browser;
let key: string;
let service: { url: string; close(): Promise<void> };
let host: { url: string; close(): Promise<void> };
/** The number of turns in each stream request's body, as received. */
const sentTurns: number[] = [];

const listen = async (server: http.Server) => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))) };
};

async function readAll(req: http.IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Answers the stream request with the chosen failure instead of the real handler. */
function fail(failure: Failure, req: http.IncomingMessage, res: http.ServerResponse) {
  const cors = { 'access-control-allow-origin': req.headers.origin ?? '*', vary: 'Origin' };
  const sse = { ...cors, 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' };
  const text = 'event: text\ndata: {"content":"Partial answer "}\n\n';
  switch (failure) {
    case 'status-500':
      res.writeHead(500, { ...cors, 'content-type': 'application/json' });
      return res.end(JSON.stringify({ error: { code: 'INTERNAL', message: 'Something broke on the service' } }));
    case 'network-error':
      return req.socket.destroy();
    case 'bad-json-frame':
      res.writeHead(200, sse);
      return res.write(`${text}event: changes\ndata: {"fields": [{"field": "title"\n\n`);
    case 'bad-shape-frame':
      res.writeHead(200, sse);
      return res.write(`${text}event: changes\ndata: {"fields":"not a list","nodeId":"42","postId":"42"}\n\nevent: done\ndata: {}\n\n`);
    case 'drop-mid-stream':
      res.writeHead(200, sse);
      res.write(text);
      return setTimeout(() => res.socket?.destroy(), 100);
    case 'cut-off':
      res.writeHead(200, sse);
      return res.end(text);
    case 'error-event':
      res.writeHead(200, sse);
      return res.end(`${text}event: error\ndata: {"message":"The assistant failed on purpose"}\n\n`);
    case 'stall':
      res.writeHead(200, sse);
      return res.write(text);
  }
}

/** The service side: the bundle, and the widget routes (the real handlers unless a failure is due). */
async function startWidgetService() {
  const bundle = readFileSync(process.env.WIDGET_TEST_BUNDLE ?? WIDGET_BUNDLE_PATH, 'utf8');
  const server = http.createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (url.pathname === '/bundle.js') {
        res.writeHead(200, { 'content-type': 'application/javascript', 'access-control-allow-origin': '*' });
        return res.end(bundle);
      }
      const route = /^\/api\/agents\/([^/]+)\/(stream|undo)$/.exec(url.pathname);
      if (!route) return res.writeHead(404).end();
      const body = req.method === 'POST' ? await readAll(req) : undefined;
      if (route[2] === 'stream' && body) {
        const { messages } = JSON.parse(body.toString()) as { messages: { content: string }[] };
        sentTurns.push(messages.length);
        const failure = failureIn(messages.at(-1)?.content);
        if (failure) return fail(failure, req, res);
      }
      const abort = new AbortController();
      res.once('close', () => !res.writableFinished && abort.abort());
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string' && !['host', 'connection', 'content-length'].includes(name)) headers.set(name, value);
      const request = new Request(new URL(req.url ?? '/', service.url), { method: req.method, headers, signal: abort.signal, ...(body ? { body: new Uint8Array(body) } : {}) });
      const handler = route[2] === 'stream' ? services.handlers.widgetStream : services.handlers.widgetUndo;
      await sendWebResponse(res, await handler(request, decodeURIComponent(route[1]!)));
    })().catch((error: unknown) => {
      res.destroy(error as Error);
    });
  });
  return listen(server);
}

/** A static editor page on its own origin that loads the bundle from the service, as a CMS would. */
async function startHostPage() {
  const server = http.createServer((_req, res) => {
    const config = { serviceUrl: service.url, apiKey: key, instanceId: 'drupal', agentSlug: slug, itemId: '42' };
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`<!doctype html><html><body><h1>Editing node 42</h1>
<script>window.drupalSettings = { serviceWidget: ${JSON.stringify(config)} };</script>
<script src="${service.url}/bundle.js"></script></body></html>`);
  });
  return listen(server);
}

beforeAll(async () => {
  site = await startCmsADouble(`mcpkey_${randomBytes(8).toString('hex')}`);
  services = testServices(t.db);
  const admin = { type: 'ui', id: 'admin', email: 'a@acme.test', role: 'admin' } as const;
  await services.connectorInstances.put(admin, { connector: 'cms_a', id: 'drupal', name: 'Drupal', siteUrl: site.siteUrl, credential: site.key });
  ({ key } = await services.widgetKeys.rotate(admin, 'cms_a', 'drupal'));
  [service, browser] = await Promise.all([startWidgetService(), launchChromium()]);
  host = await startHostPage();
  await services.widgetKeys.configure(admin, 'cms_a', 'drupal', { allowedOrigins: [host.url] });
});

afterAll(async () => {
  await browser?.close();
  await host?.close();
  await service?.close();
  await site?.close();
});

async function openPanel(tab: Page) {
  await tab.goto(host.url);
  await expect.poll(() => tab.locator('#service-widget').count()).toBe(1);
  await tab.getByRole('button', { name: 'Open assistant (Alt+Shift+A)' }).click();
  return { log: tab.getByRole('log'), input: tab.getByLabel('Message the assistant'), send: tab.getByRole('button', { name: 'Send' }) };
}

async function say(panel: Awaited<ReturnType<typeof openPanel>>, text: string) {
  await expect.poll(() => panel.send.isEnabled()).toBe(true);
  await panel.input.fill(text);
  await panel.send.click();
}

describe('the widget never locks itself out', () => {
  it('keeps working after more than 50 exchanges: it sends only the recent turns', async () => {
    const tab = await browser.newPage();
    const turns = Array.from({ length: 130 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `earlier turn ${i}` }));
    await tab.addInitScript(([storageKey, stored]) => sessionStorage.setItem(storageKey, stored), ['service-widget:drupal:cms-a-content-editor:42', JSON.stringify(turns)] as const);
    const panel = await openPanel(tab);
    await expect.poll(() => panel.log.textContent()).toContain('earlier turn 129');
    sentTurns.length = 0;
    await say(panel, 'set title to "Title after a long chat"');
    await expect.poll(() => panel.log.getByRole('table', { name: 'Changes' }).count(), { timeout: 15_000 }).toBe(1);
    expect(await panel.log.getByRole('table', { name: 'Changes' }).textContent()).toContain('Title after a long chat');
    expect(await panel.log.locator('.error').count()).toBe(0);
    expect(sentTurns).toEqual([50]);
    expect(site.nodes.get('42')!.revisions.at(-1)!.title).toBe('Title after a long chat');
    await tab.close();
  });

  it('ends every kind of failed turn with a visible error and Send enabled, and the chat goes on', async () => {
    const tab = await browser.newPage();
    const panel = await openPanel(tab);
    const expected: [Failure, RegExp][] = [
      ['status-500', /Something broke on the service/],
      ['network-error', /unreachable/],
      ['bad-json-frame', /cannot read/],
      ['bad-shape-frame', /cannot read/],
      ['drop-mid-stream', /lost|cut off/],
      ['cut-off', /cut off/],
      ['error-event', /failed on purpose/],
    ];
    let errors = 0;
    let changes = 0;
    for (const [failure, message] of expected) {
      await say(panel, `hello (${failure})`);
      errors++;
      await expect.poll(() => panel.log.locator('.error').count(), { message: failure, timeout: 10_000 }).toBe(errors);
      expect(await panel.log.locator('.error').last().textContent(), failure).toMatch(message);
      expect(await panel.log.getByRole('alert').count(), failure).toBe(errors);
      await expect.poll(() => panel.send.isEnabled(), { message: failure }).toBe(true);
      // No garbage from the broken frame reached the page.
      expect(await panel.log.getByRole('table', { name: 'Changes' }).count(), failure).toBe(changes);

      // The next message works as if nothing had happened.
      await say(panel, `set title to "After ${failure}"`);
      changes++;
      await expect.poll(() => panel.log.getByRole('table', { name: 'Changes' }).count(), { message: failure, timeout: 15_000 }).toBe(changes);
      expect(await panel.log.getByRole('table', { name: 'Changes' }).last().textContent()).toContain(`After ${failure}`);
      await expect.poll(() => panel.send.isEnabled(), { message: failure }).toBe(true);
    }
    expect(await panel.log.locator('.error').count()).toBe(errors);
    await tab.close();
  });

  it('ends a turn whose connection stalls, once the idle time has passed', async () => {
    const tab = await browser.newPage();
    await tab.clock.install();
    const panel = await openPanel(tab);
    await say(panel, 'hello (stall)');
    await expect.poll(() => panel.log.textContent()).toContain('Partial answer');
    expect(await panel.send.isDisabled()).toBe(true);
    await tab.clock.fastForward('03:01');
    await expect.poll(() => panel.log.locator('.error').count()).toBe(1);
    expect(await panel.log.locator('.error').textContent()).toMatch(/stopped answering/);
    expect(await panel.send.isEnabled()).toBe(true);
    await tab.close();
  });
});
