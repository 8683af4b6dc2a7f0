import { execFile } from 'node:child_process';
import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/browser.ts';
import { signInToWordPress, startWordPress, type RunningWordPress } from '../helpers/wordpress.ts';

/*
 * The WordPress plugin as WordPress's own conventions want it, on a real WordPress: translatable
 * with its template kept in step, hooks other code can remove, received notifications that
 * concurrent deliveries cannot lose, and nothing left behind when it is deleted.
 */

const run = promisify(execFile);
const PLUGIN = { dir: fileURLToPath(new URL('../../cms-plugins/cms-b/service-widget/', import.meta.url)), main: 'service-widget.php' };
const MAKE_POT = fileURLToPath(new URL('../../cms-plugins/cms-b/make-pot.php', import.meta.url));
const webhookSecret = randomBytes(16).toString('hex');
let wp: RunningWordPress;
let browser: Browser;

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const asAdmin = () => basic('admin', wp.adminApplicationPassword);
const installed = () => path.join(wp.root, 'wp-content', 'plugins', 'service-widget');

beforeAll(async () => {
  [wp, browser] = await Promise.all([startWordPress({ plugins: [PLUGIN] }), launchChromium()]);
  // Nothing listens on port 9: the settings are complete, and the service is unreachable.
  await wp.php(`update_option('service_widget_settings', ['service_url' => 'http://127.0.0.1:9', 'api_key' => 'wk_test', 'instance_id' => 'blog', 'webhook_secret' => '${webhookSecret}']);`);
  // A database slow to write, on request: each INSERT, UPDATE or DELETE of the plugin's rows waits
  // as many milliseconds as the request's X-Test-Slow-Writes header says, so the steps of concurrent
  // deliveries interleave in a test as they do on a loaded server.
  writeFileSync(
    path.join(wp.root, 'wp-content', 'mu-plugins', 'service-test-slow-writes.php'),
    `<?php\nadd_filter('query', function ($query) {\n  $wait = (int) ($_SERVER['HTTP_X_TEST_SLOW_WRITES'] ?? 0);\n  if ($wait > 0 && preg_match('/^\\s*(INSERT|UPDATE|DELETE)\\b.*service_widget_/is', $query)) usleep($wait * 1000);\n  return $query;\n});\n`,
  );
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await wp?.stop();
});

async function signIn(user: string, password: string): Promise<Page> {
  const page = await browser.newPage();
  page.setDefaultTimeout(60_000);
  await signInToWordPress(page, wp.url, user, password);
  return page;
}

function deliver(event: { id: string; type: string; data?: object }, slowWritesMs = 0): Promise<Response> {
  const body = JSON.stringify(event);
  const timestamp = String(Math.floor(Date.now() / 1000));
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'x-service-timestamp': timestamp,
    'x-service-signature': createHmac('sha256', webhookSecret).update(`${timestamp}.${body}`).digest('hex'),
  };
  if (slowWritesMs) headers['x-test-slow-writes'] = String(slowWritesMs);
  return fetch(`${wp.url}/wp-json/service/v1/receive`, { method: 'POST', headers, body });
}

async function received(): Promise<{ id: string; type: string; postId: number | null; at: string }[]> {
  const response = await fetch(`${wp.url}/wp-json/service/v1/received`, { headers: { authorization: asAdmin() } });
  if (!response.ok) throw new Error(`received: ${response.status}`);
  return (await response.json()) as { id: string; type: string; postId: number | null; at: string }[];
}

/** The names of every option row of the plugin: settings, webhooks, events, transients. */
async function pluginRows(): Promise<string[]> {
  return JSON.parse(await wp.php(`global $wpdb; echo json_encode($wpdb->get_col($wpdb->prepare("SELECT option_name FROM {$wpdb->options} WHERE option_name LIKE %s ORDER BY option_id", '%' . $wpdb->esc_like('service_widget') . '%')));`)) as string[];
}

describe('translations', () => {
  it('ships the translation template make-pot.php writes from the source, under the Text Domain and Domain Path of its header', async () => {
    const header = readFileSync(path.join(PLUGIN.dir, PLUGIN.main), 'utf8');
    expect(/^ \* Text Domain: (.+)$/m.exec(header)?.[1]).toBe(path.basename(PLUGIN.dir));
    expect(/^ \* Domain Path: (.+)$/m.exec(header)?.[1]).toBe('/languages');
    const template = path.join(PLUGIN.dir, 'languages', 'service-widget.pot');
    expect(existsSync(template), 'no languages/service-widget.pot: run php cms-plugins/cms-b/make-pot.php').toBe(true);
    const { stdout } = await run('php', [MAKE_POT, '--stdout']);
    expect(readFileSync(template, 'utf8'), 'languages/service-widget.pot is stale: run php cms-plugins/cms-b/make-pot.php').toBe(stdout);
    expect(stdout).toContain('msgid "Webhook secret (optional)"');
  });

  it('shows an administrator whose language has a translation the settings page, its notice and the plugin list in it', async () => {
    // A pseudo-translation of every string of the template, built with WordPress's own PO/MO classes,
    // in the plugin's languages/ folder as a translated release would ship it.
    const languages = path.join(installed(), 'languages');
    await wp.php(
      `require_once ABSPATH . WPINC . '/pomo/po.php'; $po = new PO(); $po->import_from_file('${languages}/service-widget.pot'); $mo = new MO();` +
        ` foreach ($po->entries as $entry) { $entry->translations = ['⟦' . $entry->singular . '⟧']; $mo->add_entry($entry); } $mo->export_to_file('${languages}/service-widget-de_DE.mo');`,
    );
    const password = randomBytes(12).toString('base64url');
    await wp.php(`wp_insert_user(['user_login' => 'translated', 'user_pass' => '${password}', 'user_email' => 'translated@example.test', 'role' => 'administrator', 'locale' => 'de_DE']);`);
    const page = await signIn('translated', password);
    await page.goto(`${wp.url}/wp-admin/options-general.php?page=service-widget`);
    expect(await page.locator('.wrap h1').textContent()).toBe('⟦Service Widget⟧');
    expect(await page.locator('#adminmenu a[href$="page=service-widget"]').textContent()).toBe('⟦Service Widget⟧');
    expect(await page.getByLabel('⟦Widget key⟧').getAttribute('placeholder')).toBe('⟦set — type to replace⟧');
    // Every word on the page is the plugin's, translated, but for the Settings API's own button (core's translation).
    const texts = await page.locator('.wrap').evaluate((wrap) => {
      const walker = document.createTreeWalker(wrap, NodeFilter.SHOW_TEXT);
      const found: string[] = [];
      for (let node = walker.nextNode(); node; node = walker.nextNode()) if (node.textContent!.trim()) found.push(node.textContent!.trim());
      const buttons = Array.from(wrap.querySelectorAll<HTMLInputElement>('input[type=submit]')).map((button) => button.value);
      return [...found, ...buttons];
    });
    expect(texts.length).toBeGreaterThanOrEqual(10);
    expect(texts.filter((text) => !/^⟦[^]*⟧$/.test(text))).toEqual([await page.locator('#submit').inputValue()]);
    // The notice of "Test connection" says what went wrong in the same words, the details filled in.
    await page.getByRole('button', { name: '⟦Test connection⟧' }).click();
    expect(await page.getByRole('status').textContent()).toMatch(/^⟦The service could not be reached at http:\/\/127\.0\.0\.1:9: .+⟧$/);
    // The plugin list shows the header's name and description from the same translation.
    await page.goto(`${wp.url}/wp-admin/plugins.php`);
    const row = page.locator('tr[data-plugin="service-widget/service-widget.php"]');
    expect(await row.locator('.plugin-title strong').textContent()).toBe('⟦Service Widget⟧');
    expect(await row.locator('.plugin-description').textContent()).toMatch(/^\s*⟦Loads the Service assistant widget[^⟧]*⟧\s*$/);
    await page.close();
  }, 120_000);
});

describe('hooks', () => {
  it('are named, prefixed functions, so site code can remove each of them', async () => {
    const report = JSON.parse(
      await wp.php(`
        $dir = WP_PLUGIN_DIR . '/service-widget/';
        $describe = function ($fn) {
          if ($fn instanceof Closure) return 'a closure';
          if (is_string($fn)) return $fn;
          return is_array($fn) ? (is_string($fn[0]) ? $fn[0] : get_class($fn[0])) . '::' . $fn[1] : get_class($fn) . '::__invoke';
        };
        $source = function ($fn) {
          try {
            $reflection = $fn instanceof Closure || (is_string($fn) && !str_contains($fn, '::')) ? new ReflectionFunction($fn) : (is_object($fn) ? new ReflectionMethod($fn, '__invoke') : new ReflectionMethod(...(is_array($fn) ? $fn : explode('::', $fn))));
            return (string) $reflection->getFileName();
          } catch (Throwable $e) { return ''; }
        };
        $hooks = [];
        foreach ($GLOBALS['wp_filter'] as $hook => $filter) {
          foreach ($filter->callbacks as $callbacks) {
            foreach ($callbacks as $callback) {
              if (str_starts_with($source($callback['function']), $dir)) $hooks[] = ['hook' => $hook, 'callback' => $describe($callback['function'])];
            }
          }
        }
        $routes = [];
        foreach (rest_get_server()->get_routes('service/v1') as $route => $handlers) {
          // The namespace's index is WordPress's own.
          if ($route === '/service/v1') continue;
          foreach ($handlers as $handler) {
            $routes[] = ['route' => $route, 'callback' => $describe($handler['callback']), 'permission' => $describe($handler['permission_callback'])];
          }
        }
        echo json_encode(['hooks' => $hooks, 'routes' => $routes, 'removed' => remove_action('admin_enqueue_scripts', 'service_widget_enqueue_scripts')]);
      `),
    ) as { hooks: { hook: string; callback: string }[]; routes: { route: string; callback: string; permission: string }[]; removed: boolean };
    expect(report.hooks.map((h) => h.hook).sort()).toEqual(['admin_enqueue_scripts', 'admin_init', 'admin_menu', 'admin_post_service_widget_test', 'init', 'rest_api_init', 'rest_post_dispatch', 'rest_pre_dispatch']);
    for (const { hook, callback } of report.hooks) expect(callback, hook).toMatch(/^service_widget_\w+$/);
    expect(report.routes.length).toBe(5);
    for (const { route, callback, permission } of report.routes) {
      expect(callback, route).toMatch(/^service_widget_\w+$/);
      expect(permission, route).toMatch(/^(service_widget_\w+|__return_true)$/);
    }
    expect(report.removed).toBe(true);
  });
});

describe('received notifications', () => {
  it('are all recorded when many arrive at once, and of concurrent copies of one event exactly one is accepted', async () => {
    const events = Array.from({ length: 100 }, () => ({ id: randomUUID(), type: 'content.draft_updated', data: { postId: 7 } }));
    const copied = Array.from({ length: 10 }, () => ({ id: randomUUID(), type: 'content.published', data: { postId: 8 } }));
    const deliveries = [...events, ...copied, ...copied, ...copied];
    const statuses = await Promise.all(deliveries.map(async (event) => ({ id: event.id, status: (await deliver(event, 50)).status })));
    expect(statuses.slice(0, events.length).filter((s) => s.status !== 202)).toEqual([]);
    for (const { id } of copied) expect(statuses.filter((s) => s.id === id).map((s) => s.status).sort(), id).toEqual([202, 409, 409]);
    const listed = new Set((await received()).map((e) => e.id));
    expect([...events, ...copied].filter((e) => !listed.has(e.id)).map((e) => e.id)).toEqual([]);
  }, 120_000);

  it('refuse a copy that arrives while the first delivery is still being recorded', async () => {
    const event = { id: randomUUID(), type: 'content.draft_updated', data: { postId: 9 } };
    // The first delivery's writes are slow; the copy arrives a second later, while the first is still at it.
    const first = deliver(event, 2_500);
    await delay(1_200);
    const copy = await deliver(event);
    expect([copy.status, (await first).status].sort()).toEqual([202, 409]);
    expect((await received()).filter((e) => e.id === event.id)).toHaveLength(1);
  }, 30_000);

  it('recorded by earlier builds (one list option) are listed, still refused as replays, and the old option goes', async () => {
    const ids = [randomUUID(), randomUUID()];
    await wp.php(
      `$legacy = []; foreach (json_decode('${JSON.stringify(ids)}') as $id) { add_option('service_widget_event_' . md5($id), gmdate('c'), '', false); $legacy[$id] = ['type' => 'content.published', 'postId' => 3, 'at' => gmdate('c', time() - 60)]; } update_option('service_widget_received', $legacy, false);`,
    );
    const listed = await received();
    for (const id of ids) expect(listed.find((e) => e.id === id), id).toMatchObject({ type: 'content.published', postId: 3 });
    expect(await pluginRows()).not.toContain('service_widget_received');
    expect((await deliver({ id: ids[0]!, type: 'content.published' })).status).toBe(409);
  });

  it('keep the newest 500, and older rows go only once a replay of them could no longer pass the timestamp check', async () => {
    // 500 rows, the oldest first: two received an hour ago, one a minute ago, then 497 from an hour ago.
    const seeded = Array.from({ length: 500 }, (_, i) => ({ id: `seeded-${i}`, age: i === 2 ? 60 : 3_600 }));
    await wp.php(`
      global $wpdb;
      $wpdb->query($wpdb->prepare("DELETE FROM {$wpdb->options} WHERE option_name LIKE %s", $wpdb->esc_like('service_widget_event_') . '%'));
      foreach (json_decode('${JSON.stringify(seeded)}', true) as $row) {
        $record = ['id' => $row['id'], 'type' => 'content.draft_updated', 'postId' => 1, 'at' => gmdate('c', time() - $row['age'])];
        $wpdb->insert($wpdb->options, ['option_name' => 'service_widget_event_' . md5($row['id']), 'option_value' => maybe_serialize($record), 'autoload' => 'no']);
      }
    `);
    const fresh = [randomUUID(), randomUUID(), randomUUID()];
    for (const id of fresh) expect((await deliver({ id, type: 'content.published' })).status).toBe(202);
    const rows = (await pluginRows()).filter((name) => name.startsWith('service_widget_event_'));
    expect(rows).toHaveLength(501);
    expect(rows).not.toContain(`service_widget_event_${md5('seeded-0')}`);
    expect(rows).not.toContain(`service_widget_event_${md5('seeded-1')}`);
    expect(rows).toContain(`service_widget_event_${md5('seeded-2')}`);
    expect((await deliver({ id: 'seeded-2', type: 'content.published' })).status).toBe(409);
    const listed = await received();
    expect(listed).toHaveLength(500);
    expect(listed.slice(0, 3).map((e) => e.id)).toEqual([...fresh].reverse());
  }, 60_000);
});

function md5(text: string): string {
  return createHash('md5').update(text).digest('hex');
}

describe('deleting the plugin', () => {
  it('removes every option, event row and transient it created, through WordPress\'s own uninstall', async () => {
    const webhook = await fetch(`${wp.url}/wp-json/service/v1/webhooks`, { method: 'POST', headers: { authorization: asAdmin(), 'content-type': 'application/json' }, body: JSON.stringify({ event: 'content.published' }) });
    expect(webhook.status).toBe(201);
    // A "Test connection" result nobody has read yet: its transient stays until the settings page shows it.
    const page = await signIn('admin', wp.adminPassword);
    await page.goto(`${wp.url}/wp-admin/options-general.php?page=service-widget`);
    const nonce = await page.locator(`form[action$="admin-post.php"] input[name="_wpnonce"]`).inputValue();
    const tested = await page.request.post(`${wp.url}/wp-admin/admin-post.php`, { form: { _wpnonce: nonce, action: 'service_widget_test' }, maxRedirects: 0 });
    expect(tested.status()).toBe(302);
    await page.close();
    await wp.php(`update_option('service_widget_received', [], false);`);
    const before = await pluginRows();
    expect(before).toEqual(expect.arrayContaining(['service_widget_settings', 'service_widget_webhooks', 'service_widget_received', '_transient_service_widget_test_1', '_transient_timeout_service_widget_test_1']));
    expect(before.filter((name) => name.startsWith('service_widget_event_')).length).toBeGreaterThan(400);

    // Called directly, outside WordPress's uninstall, the file does nothing.
    await fetch(`${wp.url}/wp-content/plugins/service-widget/uninstall.php`);
    expect(await pluginRows()).toEqual(before);

    // Plugins › Deactivate, then Delete, as the REST API does them (delete_plugins() → uninstall_plugin()).
    const plugin = `${wp.url}/wp-json/wp/v2/plugins/service-widget/service-widget`;
    const deactivated = await fetch(plugin, { method: 'POST', headers: { authorization: asAdmin(), 'content-type': 'application/json' }, body: JSON.stringify({ status: 'inactive' }) });
    expect(deactivated.status).toBe(200);
    const deleted = await fetch(plugin, { method: 'DELETE', headers: { authorization: asAdmin() } });
    expect(deleted.status, await deleted.clone().text()).toBe(200);
    expect(existsSync(installed())).toBe(false);
    expect(await pluginRows()).toEqual([]);
  }, 120_000);
});
