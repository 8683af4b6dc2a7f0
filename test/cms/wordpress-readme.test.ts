import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const dir = new URL('../../cms-plugins/cms-b/service-widget/', import.meta.url);

describe('the WordPress plugin readme', () => {
  it('is in WordPress readme format and agrees with the plugin header', () => {
    const readme = readFileSync(new URL('readme.txt', dir), 'utf8');
    const php = readFileSync(new URL('service-widget.php', dir), 'utf8');
    expect(readme.split('\n')[0]).toBe('=== Service Widget ===');
    const field = (text: string, name: string) => new RegExp(`^\\s*\\*?\\s*${name}:\\s*(.+)$`, 'm').exec(text)?.[1]?.trim();
    for (const name of ['Contributors', 'Tags', 'Requires at least', 'Tested up to', 'Requires PHP', 'Stable tag', 'License']) expect(field(readme, name), name).toBeTruthy();
    expect(field(readme, 'Stable tag')).toBe(field(php, 'Version'));
    expect(field(readme, 'Requires PHP')).toBe(field(php, 'Requires PHP'));
    expect(field(readme, 'License')).toBe(field(php, 'License'));
    for (const section of ['== Description ==', '== Installation ==', '== Changelog ==']) expect(readme).toContain(section);
    // Every notification type the service sends is documented for site developers.
    for (const type of ['content.draft_updated', 'content.draft_restored', 'content.published']) expect(readme).toContain(type);
  });
});
