import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { drupalCodeBase, drupalSkipReason, skipNote } from '../helpers/drupal-site.ts';

const moduleDir = fileURLToPath(new URL('../../cms-plugins/cms-a/service_widget/', import.meta.url));
const toolsDir = `${moduleDir}modules/service_widget_tools/`;
const yaml = (file: string) => parse(readFileSync(`${moduleDir}${file}`, 'utf8')) as Record<string, any>;
const source = (file: string) => readFileSync(`${moduleDir}${file}`, 'utf8');
const phpFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? phpFiles(full) : /\.(php|module|install|inc)$/.test(entry.name) ? [full] : [];
  });
const run = (command: string, args: string[], cwd = moduleDir) => {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', timeout: 120_000 });
  return { ...result, report: `${command} exit ${result.status}${result.error ? ` (${result.error.message})` : ''}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}` };
};

/** A command run without blocking the test worker (the Kernel tests take a minute or more). */
const runAsync = (command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv }) =>
  new Promise<{ status: number | null; stdout: string; report: string }>((resolve) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', (error) => resolve({ status: null, stdout, report: `${command}: ${error.message}` }));
    child.on('close', (status) => resolve({ status, stdout, report: `${command} exit ${status}\nstdout:\n${stdout}\nstderr:\n${stderr}` }));
  });

describe('the Drupal module (CMS-A)', () => {
  it('declares the settings route under /admin/config/services/, its permission and its form class', () => {
    expect(yaml('service_widget.info.yml')).toMatchObject({ type: 'module', core_version_requirement: '^10.3 || ^11', configure: 'service_widget.settings', dependencies: ['drupal:node'] });
    const route = yaml('service_widget.routing.yml')['service_widget.settings'];
    expect(route.path).toMatch(/^\/admin\/config\/services\//);
    expect(route.defaults._form).toBe('\\Drupal\\service_widget\\Form\\SettingsForm');
    expect(route.requirements._permission).toBe('administer service widget');

    const permissions = yaml('service_widget.permissions.yml');
    expect(permissions['administer service widget']).toMatchObject({ 'restrict access': true });
    expect(permissions['use service widget']).toMatchObject({ title: expect.any(String), description: expect.any(String) });

    const form = source('src/Form/SettingsForm.php');
    expect(form).toMatch(/namespace Drupal\\service_widget\\Form;/);
    expect(form).toMatch(/class SettingsForm extends ConfigFormBase/);
    for (const field of ['service_url', 'api_key', 'instance_id']) expect(form).toContain(`$form['${field}']`);
  });

  it('keeps the API key in state, out of exportable configuration', () => {
    const installed = Object.keys(yaml('config/install/service_widget.settings.yml'));
    const schema = Object.keys(yaml('config/schema/service_widget.schema.yml')['service_widget.settings'].mapping);
    expect(schema.sort()).toEqual(installed.sort());
    expect(installed.sort()).toEqual(['instance_id', 'service_url']);

    // The form gets the state service injected and never writes the key to config or back into the page.
    const form = source('src/Form/SettingsForm.php');
    expect(form).toContain("$container->get('state')");
    // Library definitions are cleared through their cache tag, not library.discovery's
    // clearCachedDefinitions() (deprecated in 11.1, removed in 12) or the deprecated collector id.
    expect(form).toContain("invalidateTags(['library_info'])");
    expect(form).not.toMatch(/library\.discovery|clearCachedDefinitions/);
    expect(form).toContain("'service_widget.api_key'");
    expect(form).not.toMatch(/->set\('api_key'/);
    expect(form).not.toMatch(/'#default_value' => [^,]*(api_key|API_KEY_STATE)/);
    expect(form).toMatch(/\$form\['api_key'\] = \[\s*'#type' => 'password'/);

    // An update moves a key from existing sites' config into state; uninstall removes it.
    const install = source('service_widget.install');
    expect(install).toMatch(/function service_widget_update_\d{5}\(/);
    expect(install).toMatch(/function service_widget_uninstall\(/);
  });

  it('hook_page_attachments and the update pass the behavioural PHP test', () => {
    const result = spawnSync('php', [`${moduleDir}tests/page_attachments_test.php`], { encoding: 'utf8', timeout: 60_000 });
    const output = `exit ${result.status}${result.error ? ` (${result.error.message})` : ''}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`;
    expect(result.status, output).toBe(0);
    expect(result.stdout, output).toMatch(/^[1-9]\d* passed, 0 failed$/m);
  });

  it('versions the external bundle: Drupal adds no ?v= to external assets', () => {
    expect(yaml('service_widget.libraries.yml').bundle.version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(source('service_widget.module')).toContain("'/api/cms-a-widget/bundle.js?v=' . $version");
  });
});

describe('the _mcp_tools submodule (service_widget_tools)', () => {
  const tools = (file: string) => parse(readFileSync(`${toolsDir}${file}`, 'utf8')) as Record<string, any>;

  it('routes /_mcp_tools to its controller behind its own authentication provider, and guards its settings with a restricted permission', () => {
    expect(tools('service_widget_tools.info.yml')).toMatchObject({ type: 'module', core_version_requirement: '^10.3 || ^11', dependencies: ['drupal:node', 'drupal:user'], configure: 'service_widget_tools.settings' });
    const routes = tools('service_widget_tools.routing.yml');
    expect(routes['service_widget_tools.mcp']).toEqual({
      path: '/_mcp_tools',
      methods: ['POST', 'GET', 'DELETE'],
      defaults: { _controller: '\\Drupal\\service_widget_tools\\Controller\\McpToolsController::handle' },
      requirements: { _user_is_logged_in: 'TRUE' },
      options: { _auth: ['service_widget_tools_key'], no_cache: true },
    });
    const services = tools('service_widget_tools.services.yml').services as Record<string, { class?: string; tags?: { name: string; provider_id?: string; tag?: string }[] }>;
    expect(Object.values(services).flatMap((s) => s.tags ?? []).filter((t) => t.name === 'authentication_provider')).toEqual([expect.objectContaining({ provider_id: 'service_widget_tools_key' })]);
    const tagged = Object.entries(services).filter(([, s]) => s.tags?.some((t) => t.name === 'service_widget_tools.tool'));
    expect(tagged.map(([id]) => id.replace('service_widget_tools.tool.', ''))).toEqual(['site_info', 'node_search', 'node_create_draft_revision', 'node_update', 'node_publish']);
    for (const [, service] of tagged) expect(readFileSync(`${toolsDir}src/${service.class!.replace('Drupal\\service_widget_tools\\', '').replaceAll('\\', '/')}.php`, 'utf8')).toMatch(/extends ToolBase|implements McpToolInterface/);
    expect(source('modules/service_widget_tools/src/Controller/McpToolsController.php')).not.toMatch(/hash_equals|->verify\(/);
    expect(routes['service_widget_tools.settings'].requirements._permission).toBe('administer service widget tools');
    expect(tools('service_widget_tools.permissions.yml')['administer service widget tools']).toMatchObject({ 'restrict access': true });
    const schema = Object.keys(tools('config/schema/service_widget_tools.schema.yml')['service_widget_tools.settings'].mapping);
    expect(schema).toEqual(Object.keys(tools('config/install/service_widget_tools.settings.yml')));
  });

  it('wires every service argument to a constructor parameter, in order and in number', () => {
    const services = tools('service_widget_tools.services.yml').services as Record<string, { class?: string; arguments?: string[] }>;
    for (const [id, service] of Object.entries(services)) {
      if (!service.class) continue;
      const file = `${toolsDir}src/${service.class.replace('Drupal\\service_widget_tools\\', '').replaceAll('\\', '/')}.php`;
      const signature = /public function __construct\(([^)]*)\)/.exec(readFileSync(file, 'utf8'))?.[1] ?? '';
      const parameters = signature.split(',').map((p) => p.trim()).filter(Boolean);
      const args = service.arguments ?? [];
      expect(parameters.length, id).toBe(args.length);
      args.forEach((argument, index) => expect(/= NULL$/.test(parameters[index]!), `${id} ${argument}`).toBe(argument.startsWith('@?')));
    }
  });

  it.skipIf(drupalSkipReason())(`passes its Kernel tests on real Drupal core with Debian phpunit${skipNote(drupalSkipReason())}`, async () => {
    // The installed code base the real-Drupal tests use (test/helpers/drupal-site.ts), which holds
    // this module in modules/custom; the tests run with core's own Kernel test base.
    const root = await drupalCodeBase();
    // Each test installs a site in SQLite: in memory (/dev/shm) they take a third of the time.
    const dbDir = mkdtempSync(existsSync('/dev/shm') ? '/dev/shm/drupal-kernel-db-' : path.join(os.tmpdir(), 'drupal-kernel-db-'));
    try {
      const config = `${root}/modules/custom/service_widget/modules/service_widget_tools/tests/phpunit.kernel.xml`;
      const result = await runAsync('phpunit', ['-c', config], { cwd: root, env: { ...process.env, SIMPLETEST_DB: `sqlite://localhost/${dbDir}/kernel.sqlite` } });
      expect(result.status, result.report).toBe(0);
      expect(result.stdout, result.report).toMatch(/^OK \((\d{2,}) tests, \d+ assertions\)$/m);
    } finally {
      rmSync(dbDir, { recursive: true, force: true });
    }
  }, 600_000);
});

describe('both Drupal modules', () => {
  it('pass phpcs with the written-down ruleset (phpcs.xml.dist)', () => {
    const result = run('phpcs', ['--standard=phpcs.xml.dist']);
    expect(result.status, result.report).toBe(0);
  });

  it('keep the two DrupalPractice rules no stock sniff checks: injected services in classes, comments within 80 columns', () => {
    const classes = phpFiles(moduleDir).filter((file) => file.includes('/src/'));
    expect(classes.length).toBeGreaterThanOrEqual(7);
    for (const file of classes) expect(readFileSync(file, 'utf8').match(/\\Drupal::(?!VERSION\b)\w+/g) ?? [], file).toEqual([]);
    const long = phpFiles(moduleDir).flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .map((line, index) => ({ file: path.relative(moduleDir, file), line: index + 1, text: line }))
        .filter(({ text }) => /^\s*(\/\/|\*|\/\*\*)/.test(text) && !/^\s*\* @/.test(text) && text.length > 80),
    );
    expect(long).toEqual([]);
  });
});
