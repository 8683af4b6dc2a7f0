import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const moduleDir = fileURLToPath(new URL('../../cms-plugins/cms-a/service_widget/', import.meta.url));
const yaml = (file: string) => parse(readFileSync(`${moduleDir}${file}`, 'utf8')) as Record<string, any>;

describe('the Drupal module (CMS-A)', () => {
  it('declares the settings route under /admin/config/services/, its permission and its form class', () => {
    expect(yaml('service_widget.info.yml')).toMatchObject({ type: 'module', core_version_requirement: '^10 || ^11', configure: 'service_widget.settings' });
    const route = yaml('service_widget.routing.yml')['service_widget.settings'];
    expect(route.path).toMatch(/^\/admin\/config\/services\//);
    expect(route.defaults._form).toBe('\\Drupal\\service_widget\\Form\\SettingsForm');
    const permission = route.requirements._permission as string;
    expect(Object.keys(yaml('service_widget.permissions.yml'))).toContain(permission);

    const form = readFileSync(`${moduleDir}src/Form/SettingsForm.php`, 'utf8');
    expect(form).toMatch(/namespace Drupal\\service_widget\\Form;/);
    expect(form).toMatch(/class SettingsForm extends ConfigFormBase/);
    for (const field of ['service_url', 'api_key', 'instance_id']) expect(form).toContain(`$form['${field}']`);
  });

  it('has a schema for every installed setting and attaches the widget only where the spec says', () => {
    const installed = Object.keys(yaml('config/install/service_widget.settings.yml'));
    const schema = Object.keys(yaml('config/schema/service_widget.schema.yml')['service_widget.settings'].mapping);
    expect(schema.sort()).toEqual(installed.sort());
    const module = readFileSync(`${moduleDir}service_widget.module`, 'utf8');
    expect(module).toContain("isAnonymous()");
    expect(module).toContain("'entity.node.canonical', 'entity.node.edit_form'");
    expect(module).toContain('isFrontPage()');
    expect(module).toContain("['drupalSettings']['serviceWidget']");
    expect(module).toContain('/api/cms-a-widget/bundle.js');
  });
});
