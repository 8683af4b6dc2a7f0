import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { canConnect, findFreePort } from '@service/core/net';
import type { Page } from 'playwright-core';

const run = promisify(execFile);
const HERE = fileURLToPath(new URL('./wordpress/', import.meta.url));
const WORDPRESS_SOURCE = '/usr/share/wordpress';

export interface RunningWordPress {
  /** Site URL, e.g. http://127.0.0.1:PORT */
  url: string;
  /** The editor (no manage_options) and its application password. */
  username: string;
  applicationPassword: string;
  /** Browser sign-in passwords, and an application password of the administrator. */
  adminPassword: string;
  editorPassword: string;
  adminApplicationPassword: string;
  /** The docroot: WordPress's files, wp-content with the plugins and mu-plugins. */
  root: string;
  /** Runs PHP with WordPress loaded (as WP-CLI's `wp eval` would) in the docroot; resolves to what it printed. */
  php(code: string): Promise<string>;
  /** How many times the REST API wrote post `id` (created or updated), counted at the site. */
  writes(id: number): Promise<number>;
  stop(): Promise<void>;
}

/** Debian's wordpress, php-cli, php-mysql and mariadb-server, installed when missing (root on these machines). */
export async function ensureWordPressPackages(): Promise<void> {
  const missing = !existsSync(`${WORDPRESS_SOURCE}/wp-load.php`) || !existsSync('/usr/bin/php') || !existsSync('/usr/sbin/mariadbd') || !existsSync('/usr/bin/mariadb-install-db');
  if (!missing) return;
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  await run('apt-get', ['update', '-qq'], { env, maxBuffer: 1 << 26 });
  await run('apt-get', ['install', '-y', '-qq', 'wordpress', 'php-cli', 'php-mysql', 'mariadb-server'], { env, maxBuffer: 1 << 26 });
}

async function waitForPort(port: number, child: ChildProcess, what: string, output: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${what} exited with ${child.exitCode}:\n${output()}`);
    if (await canConnect('127.0.0.1', port, 250)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} did not listen on ${port}:\n${output()}`);
}

/**
 * A real WordPress for tests: a private MariaDB (temp datadir, own socket, free port) and
 * WordPress under `php -S` on a free loopback port, installed with an editor user and an
 * application password. Nothing touches a system MariaDB or Apache.
 */
export async function startWordPress(options: { plugins?: { dir: string; main: string }[] } = {}): Promise<RunningWordPress> {
  await ensureWordPressPackages();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'wordpress-'));
  const children: ChildProcess[] = [];
  const groups = new Set<ChildProcess>();
  const stop = async () => {
    for (const child of children.reverse()) {
      if (child.exitCode === null) {
        await new Promise<void>((resolve) => {
          child.once('exit', () => resolve());
          child.kill('SIGTERM');
        });
      }
      // php -S leaves its workers running when the master stops: they share its process group.
      if (groups.has(child)) {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          // The group is gone already.
        }
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const datadir = path.join(dir, 'mariadb');
    const socket = path.join(dir, 'mariadb.sock');
    await run('mariadb-install-db', [`--datadir=${datadir}`, '--user=root', '--auth-root-authentication-method=normal', '--skip-test-db'], { maxBuffer: 1 << 24 });
    const dbPort = await findFreePort();
    let dbOutput = '';
    const mariadb = spawn('mariadbd', [`--datadir=${datadir}`, `--socket=${socket}`, `--port=${dbPort}`, '--bind-address=127.0.0.1', '--user=root', '--skip-log-error', `--pid-file=${path.join(dir, 'mariadb.pid')}`], { stdio: ['ignore', 'pipe', 'pipe'] });
    mariadb.stdout?.on('data', (c: Buffer) => (dbOutput += c.toString()));
    mariadb.stderr?.on('data', (c: Buffer) => (dbOutput += c.toString()));
    children.push(mariadb);
    await waitForPort(dbPort, mariadb, 'mariadbd', () => dbOutput);
    const dbPassword = randomBytes(12).toString('hex');
    await run('mariadb', [`--socket=${socket}`, '-uroot', '-e', `CREATE DATABASE wordpress; CREATE USER 'wp'@'127.0.0.1' IDENTIFIED BY '${dbPassword}'; GRANT ALL ON wordpress.* TO 'wp'@'127.0.0.1';`]);

    const root = path.join(dir, 'htdocs');
    // The package holds symlinks (wp-content, JavaScript libraries): copy what they point at.
    cpSync(WORDPRESS_SOURCE, root, { recursive: true, dereference: true });
    mkdirSync(path.join(root, 'wp-content', 'uploads'), { recursive: true });
    for (const plugin of options.plugins ?? []) cpSync(plugin.dir, path.join(root, 'wp-content', 'plugins', path.basename(plugin.dir)), { recursive: true });
    // A meta field the REST API exposes, so meta writes can be read back; and posts whose slug
    // starts with "classic-" open in the classic editor, so tests can drive both editors.
    mkdirSync(path.join(root, 'wp-content', 'mu-plugins'), { recursive: true });
    writeFileSync(
      path.join(root, 'wp-content', 'mu-plugins', 'service-test-meta.php'),
      `<?php\nadd_action('init', function () {\n  register_post_meta('post', 'service_subtitle', ['show_in_rest' => true, 'single' => true, 'type' => 'string', 'auth_callback' => function () { return current_user_can('edit_posts'); }]);\n});\n` +
        `add_filter('use_block_editor_for_post', function ($use, $post) { return str_starts_with($post->post_name, 'classic-') ? false : $use; }, 10, 2);\n`,
    );
    // Every post the REST API writes (created or updated) leaves a row, so tests count writes at
    // the site; the option service_test_write_delay_ms holds a write's answer back after it is stored.
    writeFileSync(
      path.join(root, 'wp-content', 'mu-plugins', 'service-test-writes.php'),
      `<?php\nadd_action('rest_after_insert_post', function ($post) {\n  global $wpdb;\n  $wpdb->insert($wpdb->options, ['option_name' => 'service_test_write_' . uniqid('', true), 'option_value' => (string) $post->ID, 'autoload' => 'no']);\n  $delay = (int) get_option('service_test_write_delay_ms', 0);\n  if ($delay > 0) usleep($delay * 1000);\n});\n`,
    );
    const port = await findFreePort();
    const host = `127.0.0.1:${port}`;
    const salts = ['AUTH_KEY', 'SECURE_AUTH_KEY', 'LOGGED_IN_KEY', 'NONCE_KEY', 'AUTH_SALT', 'SECURE_AUTH_SALT', 'LOGGED_IN_SALT', 'NONCE_SALT']
      .map((name) => `define('${name}', '${randomBytes(24).toString('hex')}');`)
      .join('\n');
    // Our own config: Debian's wp-config.php picks /etc/wordpress/config-<host>.php by host name.
    writeFileSync(
      path.join(root, 'wp-config.php'),
      `<?php
define('DB_NAME', 'wordpress');
define('DB_USER', 'wp');
define('DB_PASSWORD', '${dbPassword}');
define('DB_HOST', '127.0.0.1:${dbPort}');
define('DB_CHARSET', 'utf8mb4');
define('DB_COLLATE', '');
${salts}
define('WP_ENVIRONMENT_TYPE', 'local');
define('WP_CONTENT_DIR', __DIR__ . '/wp-content');
define('WP_HOME', 'http://${host}');
define('WP_SITEURL', 'http://${host}');
define('FS_METHOD', 'direct');
// No network but loopback here: no update checks, no outbound HTTP, no cron on page loads.
define('WP_HTTP_BLOCK_EXTERNAL', true);
define('AUTOMATIC_UPDATER_DISABLED', true);
define('DISABLE_WP_CRON', true);
define('WP_DEBUG', false);
$table_prefix = 'wp_';
if (!defined('ABSPATH')) define('ABSPATH', __DIR__ . '/');
require_once ABSPATH . 'wp-settings.php';
`,
    );
    const adminPassword = randomBytes(12).toString('base64url');
    const editorPassword = randomBytes(12).toString('base64url');
    const activate = (options.plugins ?? []).map((p) => `${path.basename(p.dir)}/${p.main}`).join(',');
    const { stdout } = await run('php', [path.join(HERE, 'bootstrap.php')], {
      cwd: root,
      env: { ...process.env, WP_TEST_HOST: host, WP_ADMIN_PASSWORD: adminPassword, WP_EDITOR_PASSWORD: editorPassword, WP_ACTIVATE_PLUGINS: activate },
      maxBuffer: 1 << 24,
    });
    const credentials = JSON.parse(stdout.slice(stdout.indexOf('{'))) as { username: string; applicationPassword: string; adminApplicationPassword: string };
    let phpOutput = '';
    // Several workers: one request that waits (a browser's held connection, a slow page) must not
    // stall every other (the built-in server is single-threaded without them).
    const server = spawn('php', ['-S', host, '-t', root, path.join(HERE, 'router.php')], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PHP_CLI_SERVER_WORKERS: '4' }, detached: true });
    groups.add(server);
    server.stdout?.on('data', (c: Buffer) => (phpOutput = (phpOutput + c.toString()).slice(-4000)));
    server.stderr?.on('data', (c: Buffer) => (phpOutput = (phpOutput + c.toString()).slice(-4000)));
    children.push(server);
    await waitForPort(port, server, 'php -S', () => phpOutput);
    const php = async (code: string) => (await run('php', ['-r', `$_SERVER['HTTP_HOST'] = '${host}'; require 'wp-load.php'; ${code}`], { cwd: root, maxBuffer: 1 << 24 })).stdout;
    return {
      url: `http://${host}`,
      username: credentials.username,
      applicationPassword: credentials.applicationPassword,
      adminPassword,
      editorPassword,
      adminApplicationPassword: credentials.adminApplicationPassword,
      root,
      php,
      writes: async (id) => Number(await php(`global $wpdb; echo (int) $wpdb->get_var($wpdb->prepare("SELECT COUNT(*) FROM {$wpdb->options} WHERE option_name LIKE 'service\\_test\\_write\\_%%' AND option_value = %s", '${id}'));`)),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * Signs `user` in through wp-login.php in `page`. Signed in means WordPress redirected into
 * wp-admin: the navigation committing there is enough (the landing page's own assets are not
 * what a sign-in waits for). A refused sign-in says where the page is and WordPress's message.
 */
export async function signInToWordPress(page: Page, siteUrl: string, user: string, password: string): Promise<void> {
  await page.goto(`${siteUrl}/wp-login.php`);
  // Filled and submitted in one task of the page: wp-login.php's own script may clear the password
  // field from a timer shortly after load, and on a busy machine that timer fired between a fill
  // and the click ("The password field is empty").
  await page.locator('#wp-submit').waitFor();
  await page.evaluate(
    ([login, secret]) => {
      (document.getElementById('user_login') as HTMLInputElement).value = login!;
      (document.getElementById('user_pass') as HTMLInputElement).value = secret!;
      (document.getElementById('wp-submit') as HTMLInputElement).click();
    },
    [user, password],
  );
  await page.waitForURL(/\/wp-admin\//, { waitUntil: 'commit' }).catch(async (error: unknown) => {
    const message = await page.locator('#login_error').textContent({ timeout: 1_000 }).catch(() => null);
    throw new Error(`signing in as ${user} did not reach wp-admin: the page is at ${page.url()}${message ? ` and says "${message.trim()}"` : ''}`, { cause: error });
  });
}
