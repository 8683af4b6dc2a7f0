import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { testServices, useTestDatabase } from '@service/core/testing';
import { createCmsBNotifier } from '@service/core/notifications';
import { createMemoryLogger } from '@service/core/log';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Services } from '@service/core';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/browser.ts';
import { startService, type RunningService } from '../helpers/service-process.ts';
import { signInToWordPress, startWordPress, type RunningWordPress } from '../helpers/wordpress.ts';

const PLUGIN = { dir: fileURLToPath(new URL('../../cms-plugins/cms-b/service-widget/', import.meta.url)), main: 'service-widget.php' };
const t = useTestDatabase();
let wp: RunningWordPress;
let service: RunningService;
let browser: Browser;
let widgetKey: string;
let services: Services;
const admin = { type: 'ui', id: 'admin', email: 'a@acme.test', role: 'admin' } as const;
const webhookSecret = randomBytes(16).toString('hex');

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const asAdmin = () => basic('admin', wp.adminApplicationPassword);
const asEditor = () => basic(wp.username, wp.applicationPassword);

beforeAll(async () => {
  const masterKey = randomBytes(32).toString('base64');
  wp = await startWordPress({ plugins: [PLUGIN] });
  services = testServices(t.db, { SERVICE_MASTER_KEY: masterKey });
  await services.connectorInstances.put(admin, { connector: 'cms_b', id: 'blog', name: 'Blog', siteUrl: wp.url, username: wp.username, credential: wp.applicationPassword, webhookSecret });
  ({ key: widgetKey } = await services.widgetKeys.rotate(admin, 'cms_b', 'blog'));
  [service, browser] = await Promise.all([startService({ mongodbUri: t.uri, env: { SERVICE_MASTER_KEY: masterKey } }), launchChromium()]);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
  await wp?.stop();
});

/** WordPress under php -S serves one request at a time; with the whole suite running in parallel, pages can be slow. */
const SLOW = 90_000;

async function signIn(page: Page, user: string, password: string) {
  page.setDefaultTimeout(SLOW);
  page.setDefaultNavigationTimeout(SLOW);
  await signInToWordPress(page, wp.url, user, password);
}

/** A post whose body is one paragraph block, as the block editor writes it. */
async function createPost(title: string, status: string): Promise<number> {
  const content = '<!-- wp:paragraph -->\n<p>Body.</p>\n<!-- /wp:paragraph -->';
  const response = await fetch(`${wp.url}/wp-json/wp/v2/posts`, { method: 'POST', headers: { authorization: asEditor(), 'content-type': 'application/json' }, body: JSON.stringify({ title, content, status }) });
  return ((await response.json()) as { id: number }).id;
}

type StoredPost = { status: string; title: { raw: string }; content?: { raw: string }; link: string };
async function post(id: number): Promise<StoredPost> {
  return (await (await fetch(`${wp.url}/wp-json/wp/v2/posts/${id}?context=edit`, { headers: { authorization: asEditor() } })).json()) as StoredPost;
}

async function received(auth = asAdmin()): Promise<{ id: string; type: string; postId: number | null }[]> {
  const response = await fetch(`${wp.url}/wp-json/service/v1/received`, { headers: { authorization: auth } });
  if (!response.ok) throw new Error(`received: ${response.status}`);
  return (await response.json()) as { id: string; type: string; postId: number | null }[];
}

/** The classic editor's publish box: what it says and what its buttons submit (a hidden button is null). */
function publishBox(page: Page) {
  return page.evaluate(() => {
    const input = (selector: string) => document.querySelector<HTMLInputElement>(selector);
    const button = (selector: string) => {
      const element = input(selector);
      return element && element.offsetParent !== null ? { name: element.name, value: element.value } : null;
    };
    return {
      status: document.querySelector('#post-status-display')?.textContent?.trim(),
      statusOptions: Array.from(document.querySelectorAll<HTMLOptionElement>('#post_status option')).map((option) => `${option.value}:${option.textContent?.trim()}${option.selected ? ' (selected)' : ''}`),
      hiddenStatus: input('#hidden_post_status')?.value,
      originalStatus: input('#original_post_status')?.value,
      timestamp: document.querySelector('#timestamp')?.textContent?.replace(/\s+/g, ' ').trim(),
      saveDraft: button('#save-post'),
      publish: button('#publish'),
      originalPublish: input('#original_publish')?.value,
    };
  });
}

/** Whether leaving the page now would ask first: WordPress's beforeunload handler, as the browser runs it. */
function leavingAsks(page: Page): Promise<boolean> {
  return page.evaluate(() => {
    const event = new Event('beforeunload', { cancelable: true });
    window.dispatchEvent(event);
    return event.defaultPrevented;
  });
}

describe('the WordPress plugin in a real WordPress', () => {
  it('is configured on its settings page; an admin editing a post uses the widget to retitle it and to undo', async () => {
    const page = await browser.newPage();
    await signIn(page, 'admin', wp.adminPassword);
    const consoleErrors: string[] = [];
    page.on('console', (message) => message.type() === 'error' && consoleErrors.push(message.text()));
    await page.goto(`${wp.url}/wp-admin/options-general.php?page=service-widget`);
    // The instance id's pattern compiles as Chromium compiles it (the v flag): an invalid one is a console error.
    expect(await page.getByLabel('Instance ID').getAttribute('pattern')).toBe('[a-z0-9](?:[a-z0-9]|-)*');
    await page.getByLabel('Instance ID').fill('Not An Id');
    expect(await page.getByLabel('Instance ID').evaluate((input: HTMLInputElement) => input.checkValidity())).toBe(false);
    expect(consoleErrors.filter((text) => /pattern/i.test(text))).toEqual([]);
    // Each value says where in the service it comes from; the key has the service's name for it.
    expect(await page.locator('#service-widget-api_key-help').textContent()).toContain('Administration > Assistants > CMS-B');
    expect(await page.locator('#service-widget-instance_id-help').textContent()).toContain('Administration > Connectors > CMS-B');
    // WordPress's admin drops settings-updated from the address bar (history.replaceState) as the
    // page loads, which can be before its load event: the redirect is checked when it commits.
    const saved = () => page.waitForURL(/settings-updated=true/, { waitUntil: 'commit' });
    const testConnection = async () => {
      await page.getByRole('button', { name: 'Test connection' }).click();
      return (await page.getByRole('status').textContent())?.trim();
    };
    expect(await testConnection()).toBe('Fill in and save the service URL, the widget key and the instance ID first.');
    // A wrong key: the service's answer, in words that say what to do.
    await page.getByLabel('Service URL').fill(service.url);
    await page.getByLabel('Widget key').fill('wk_not_the_key');
    await page.getByLabel('Instance ID').fill('blog');
    await page.getByLabel('Webhook secret (optional)').fill(webhookSecret);
    await Promise.all([saved(), page.locator('#submit').click()]);
    expect(await testConnection()).toContain('The service refused the widget key');
    await page.getByLabel('Widget key').fill(widgetKey);
    await Promise.all([saved(), page.locator('#submit').click()]);
    // The form never shows the stored key (the widget itself needs it in admin pages, by design).
    expect(await page.getByLabel('Widget key').inputValue()).toBe('');
    expect(await page.getByLabel('Widget key').getAttribute('placeholder')).toBe('set — type to replace');
    expect(await testConnection()).toBe('Connected: the service accepts the widget key for instance blog (LLM: scripted).');

    const id = await createPost('Published by WordPress', 'publish');
    const link = (await post(id)).link;
    expect((await fetch(link)).status).toBe(200);
    await page.goto(`${wp.url}/wp-admin/post.php?post=${id}&action=edit`);
    const scripts = await page.locator('script[src*="/api/cms-b-widget/bundle.js"]').getAttribute('src');
    expect(scripts).toContain('?v=0.1.0');
    // The block editor's welcome guide is modal (it hides the rest of the page, the widget too): close it.
    const guide = page.getByRole('dialog', { name: /Welcome to the block editor/ });
    await guide.waitFor({ timeout: 20_000 }).then(() => guide.getByRole('button', { name: 'Close' }).click(), () => undefined);
    await page.getByRole('button', { name: /Open assistant/ }).click();
    // The offline provider answers: the input shows the phrases it understands, on WordPress's fields.
    await expect
      .poll(() => page.getByLabel('Message the assistant').getAttribute('placeholder'), { timeout: 30_000 })
      .toBe('Offline assistant. Try: set title to "…"; replace "old" with "new" in content; append "…" to excerpt');
    await page.getByLabel('Message the assistant').fill('set title to "Retitled by the assistant"');
    await page.getByLabel('Message the assistant').press('Enter');
    // The post is live: the widget asks first, and nothing is sent until the user confirms.
    const confirm = page.getByRole('alertdialog', { name: 'Edit a live post?' });
    expect(await confirm.textContent()).toContain('This post is live. Editing it will unpublish it until you publish again.');
    expect((await post(id)).status).toBe('publish');
    await confirm.getByRole('button', { name: 'Edit anyway' }).click();
    const log = page.getByRole('log');
    await expect.poll(() => log.getByRole('table', { name: 'Changes' }).count(), { timeout: SLOW }).toBe(1);
    expect(await log.textContent()).toContain('[scripted]');
    // The diff shows the status the edit changed, as a field.
    expect(await log.getByRole('table', { name: 'Changes' }).getByRole('row').allTextContents()).toEqual(['FieldBeforeAfter', 'titlePublished by WordPressRetitled by the assistant', 'statuspublishdraft']);
    expect(await post(id)).toMatchObject({ status: 'draft', title: { raw: 'Retitled by the assistant' } });
    expect((await fetch(link)).status).toBe(404);

    // The open editor shows what is stored, without a reload: the new title, and a draft to save.
    await expect.poll(() => page.locator('.editor-post-title__input').textContent(), { timeout: 30_000 }).toBe('Retitled by the assistant');
    // The user goes on in the editor and saves: the assistant's title and the draft status stay.
    await page.locator('.block-editor-rich-text__editable', { hasText: 'Body.' }).click();
    await page.keyboard.press('End');
    await page.keyboard.type(' Typed in the editor.');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await expect.poll(async () => (await post(id)).content?.raw ?? '', { timeout: 30_000 }).toContain('Typed in the editor.');
    expect(await post(id)).toMatchObject({ status: 'draft', title: { raw: 'Retitled by the assistant' } });

    // After a reload the diff is still there, and its Undo restores every field, the status too:
    // publishing again is asked first, and nothing is sent until the user confirms.
    await page.reload();
    await page.getByRole('button', { name: /Open assistant/ }).click();
    await expect.poll(() => log.getByRole('table', { name: 'Changes' }).count(), { timeout: SLOW }).toBe(1);
    await log.getByRole('button', { name: 'Undo' }).click();
    const publishAgain = page.getByRole('alertdialog', { name: 'Publish again?' });
    expect(await publishAgain.textContent()).toContain('Undoing this change publishes the post again');
    expect((await post(id)).status).toBe('draft');
    await publishAgain.getByRole('button', { name: 'Undo and publish' }).click();
    await expect.poll(() => log.getByRole('table', { name: 'Changes' }).count(), { timeout: SLOW }).toBe(2);
    expect(await post(id)).toMatchObject({ status: 'publish', title: { raw: 'Published by WordPress' } });
    // The Undo's own diff (status draft → publish) offers no Undo: nothing can take the post offline unasked.
    expect(await log.locator('.changes').nth(1).getByRole('button').count()).toBe(0);
    expect(await log.getByRole('button', { name: 'Undo' }).isDisabled()).toBe(true);
    // Live again for anonymous visitors, and the editor shows the restored title.
    expect((await fetch(link)).status).toBe(200);
    await expect.poll(() => page.locator('.editor-post-title__input').textContent(), { timeout: 30_000 }).toBe('Published by WordPress');

    // The service told the site, signed with its webhook secret: the edit, then the undo.
    await expect
      .poll(async () => (await received()).filter((e) => e.postId === id).map((e) => e.type), { timeout: 30_000 })
      .toEqual(['content.draft_restored', 'content.draft_updated']);
  }, 240_000);

  it('keeps the classic editor in step with the assistant: its fields and publish box show what is stored, leaving does not ask, and its save keeps it', async () => {
    // Two paragraphs, as the classic editor stores them: separated by a blank line, no <p> tags.
    const content = 'Classic body.\n\nSecond paragraph.';
    const created = await fetch(`${wp.url}/wp-json/wp/v2/posts`, { method: 'POST', headers: { authorization: asEditor(), 'content-type': 'application/json' }, body: JSON.stringify({ title: 'Classic title', content, status: 'publish', slug: 'classic-one' }) });
    const { id } = (await created.json()) as { id: number };
    const page = await browser.newPage();
    await signIn(page, 'admin', wp.adminPassword);
    await page.goto(`${wp.url}/wp-admin/post.php?post=${id}&action=edit`);
    expect(await page.locator('#title').inputValue()).toBe('Classic title');
    const asPublished = await publishBox(page);
    expect(asPublished).toMatchObject({ status: 'Published', publish: { name: 'save', value: 'Update' }, saveDraft: null });
    // autosave.js takes the loaded fields as saved one second after the visual editor's init (its own
    // timer); a user asks the assistant later than that, and so does this test.
    await page.waitForFunction(() => (window as unknown as { tinymce?: { get(id: string): { initialized?: boolean } | null } }).tinymce?.get('content')?.initialized === true);
    await page.waitForTimeout(1_500);
    const prompts: string[] = [];
    page.on('dialog', (dialog) => {
      prompts.push(dialog.type());
      void dialog.accept();
    });

    await page.getByRole('button', { name: /Open assistant/ }).click();
    await page.getByLabel('Message the assistant').fill('set title to "Classic retitled"');
    await page.getByLabel('Message the assistant').press('Enter');
    await page.getByRole('alertdialog', { name: 'Edit a live post?' }).getByRole('button', { name: 'Edit anyway' }).click();
    await expect.poll(() => page.getByRole('log').getByRole('table', { name: 'Changes' }).count(), { timeout: SLOW }).toBe(1);
    // The form shows the stored title without a reload, and the publish box reads as WordPress shows a draft.
    await expect.poll(() => page.locator('#title').inputValue(), { timeout: 30_000 }).toBe('Classic retitled');
    const asSynced = await publishBox(page);
    expect(asSynced).toMatchObject({ status: 'Draft', publish: { name: 'publish', value: 'Publish' }, saveDraft: { name: 'save', value: 'Save Draft' } });
    // What the fields hold is what is stored: leaving the page does not ask about unsaved changes.
    await expect.poll(() => leavingAsks(page), { timeout: 30_000 }).toBe(false);

    // Saving the draft keeps the assistant's title, the draft status and both paragraphs.
    // (message= leaves the address bar as the page loads: the redirect is checked when it commits.)
    await Promise.all([page.waitForURL(/message=/, { waitUntil: 'commit' }), page.getByRole('button', { name: 'Save Draft' }).click()]);
    await page.waitForLoadState('load');
    const saved = await post(id);
    expect(saved).toMatchObject({ status: 'draft', title: { raw: 'Classic retitled' } });
    // (A form posts a textarea's line ends as CRLF, and WordPress stores them so.)
    expect(saved.content?.raw.replaceAll('\r\n', '\n')).toBe(content);
    // WordPress's own rendering of the draft is the publish box the page showed before the save.
    expect(await publishBox(page)).toEqual(asSynced);

    // The other way, as the widget's Undo does it: published again, the box reads as it did at first.
    await fetch(`${wp.url}/wp-json/wp/v2/posts/${id}`, { method: 'POST', headers: { authorization: asEditor(), 'content-type': 'application/json' }, body: JSON.stringify({ status: 'publish' }) });
    await page.evaluate((itemId) => document.dispatchEvent(new CustomEvent('service-widget:changes', { detail: { itemId, fields: [{ field: 'status', before: 'draft', after: 'publish' }] } })), String(id));
    await expect.poll(() => publishBox(page), { timeout: 30_000 }).toEqual(asPublished);
    await expect.poll(() => leavingAsks(page), { timeout: 30_000 }).toBe(false);
    await page.reload();
    expect(prompts).toEqual([]);

    // Published by hand since the assistant's edit: its Undo is refused, said so, and the post stays live.
    await page.getByRole('button', { name: /Open assistant/ }).click();
    const log = page.getByRole('log');
    await log.getByRole('button', { name: 'Undo' }).click();
    // The widget asks first (the recorded edit took the post offline); the service then refuses.
    await page.getByRole('alertdialog', { name: 'Publish again?' }).getByRole('button', { name: 'Undo and publish' }).click();
    await expect.poll(() => log.getByRole('alert').count(), { timeout: SLOW }).toBe(1);
    expect(await log.getByRole('alert').textContent()).toContain('status is now "publish"');
    expect(await post(id)).toMatchObject({ status: 'publish', title: { raw: 'Classic retitled' } });
  }, 240_000);

  it('does not load the bundle for a user without manage_options, nor on the front end', async () => {
    const id = await createPost('Editor post', 'draft');
    const page = await browser.newPage();
    await signIn(page, 'editor', wp.editorPassword);
    await page.goto(`${wp.url}/wp-admin/post.php?post=${id}&action=edit`);
    expect(await page.locator('script[src*="bundle.js"]').count()).toBe(0);
    const front = await (await fetch(`${wp.url}/`)).text();
    expect(front).not.toContain('bundle.js');
  }, 180_000);

  it('keeps webhook subscriptions behind manage_options', async () => {
    expect((await fetch(`${wp.url}/wp-json/service/v1/webhooks`, { headers: { authorization: asEditor() } })).status).toBe(403);
    const created = await fetch(`${wp.url}/wp-json/service/v1/webhooks`, { method: 'POST', headers: { authorization: asAdmin(), 'content-type': 'application/json' }, body: JSON.stringify({ event: 'publish.completed' }) });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    expect(((await (await fetch(`${wp.url}/wp-json/service/v1/webhooks`, { headers: { authorization: asAdmin() } })).json()) as { id: string }[]).map((h) => h.id)).toEqual([id]);
    expect((await fetch(`${wp.url}/wp-json/service/v1/webhooks/${id}`, { method: 'DELETE', headers: { authorization: asEditor() } })).status).toBe(403);
    expect((await fetch(`${wp.url}/wp-json/service/v1/webhooks/${id}`, { method: 'DELETE', headers: { authorization: asAdmin() } })).status).toBe(200);
  });

  it('accepts a signed notification once, and rejects a bad signature, an old timestamp and a replay', async () => {
    const send = (body: string, timestamp: number, secret = webhookSecret) =>
      fetch(`${wp.url}/wp-json/service/v1/receive`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-timestamp': String(timestamp), 'x-service-signature': createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex') },
        body,
      });
    const now = Math.floor(Date.now() / 1000);
    const event = JSON.stringify({ id: randomUUID(), type: 'publish.completed', data: { postId: 1 } });
    expect((await send(event, now, 'wrong secret')).status).toBe(401);
    expect((await send(event, now - 3_600)).status).toBe(401);
    expect((await send(event, now)).status).toBe(202);
    expect((await send(event, now)).status).toBe(409);
  });
});

describe('outbound notifications from the service', () => {
  it('are signed with the instance\'s webhook secret and accepted by the plugin', async () => {
    const { id } = await services.notifyCmsB('blog', 'publish.completed', { postId: 1, network: 'mastodon' });
    expect((await received()).find((e) => e.id === id)).toMatchObject({ type: 'publish.completed', postId: 1 });
    expect((await fetch(`${wp.url}/wp-json/service/v1/received`, { headers: { authorization: asEditor() } })).status).toBe(403);
    await services.connectorInstances.put(admin, { connector: 'cms_b', id: 'wrong', name: 'Wrong secret', siteUrl: wp.url, username: wp.username, credential: wp.applicationPassword, webhookSecret: 'not the secret' });
    await expect(services.notifyCmsB('wrong', 'publish.completed', {})).rejects.toMatchObject({ message: expect.stringContaining('refused the notification (401)') });
  });

  it('tell the site when a post is published through the connector', async () => {
    const id = await createPost('To publish', 'draft');
    const publish = (allowLive = false) => services.primitives.call({ type: 'ui', id: 'admin', email: 'a@acme.test', role: 'admin' }, 'cms_b_post_update', { instanceId: 'blog', id, status: 'publish', allowLive });
    await publish();
    // Saving an already published post again (a live post: allowed explicitly) is not another publish.
    await publish(true);
    await services.cmsBEvents.flush();
    expect((await received()).filter((e) => e.postId === id).map((e) => e.type)).toEqual(['content.published']);
  });

  it('are retried with backoff while the site answers 5xx', async () => {
    let calls = 0;
    const flaky = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        calls++;
        res.writeHead(calls < 3 ? 503 : 202).end('{}');
      });
    });
    await new Promise<void>((resolve) => flaky.listen(0, '127.0.0.1', resolve));
    try {
      await services.connectorInstances.put(admin, { connector: 'cms_b', id: 'flaky', name: 'Flaky', siteUrl: `http://127.0.0.1:${(flaky.address() as AddressInfo).port}`, username: 'x', credential: 'x', webhookSecret: 's' });
      const notify = createCmsBNotifier({ instances: services.connectorInstances, http: services.outbound, logger: createMemoryLogger(), baseDelayMs: 10 });
      expect(await notify('flaky', 'publish.completed', {})).toMatchObject({ attempts: 3 });
      expect(calls).toBe(3);
    } finally {
      flaky.close();
    }
  });
});
