import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const moduleDir = fileURLToPath(new URL('../../cms-plugins/cms-a/service_widget/', import.meta.url));
const yaml = (file: string) => parse(readFileSync(`${moduleDir}${file}`, 'utf8')) as Record<string, any>;
const source = (file: string) => readFileSync(`${moduleDir}${file}`, 'utf8');

describe('the Drupal module (CMS-A)', () => {
  it('declares the settings route under /admin/config/services/, its permission and its form class', () => {
    expect(yaml('service_widget.info.yml')).toMatchObject({ type: 'module', core_version_requirement: '^10 || ^11', configure: 'service_widget.settings' });
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
});
