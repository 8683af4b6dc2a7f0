import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ensureWordPressPackages } from '../helpers/wordpress.ts';

const run = promisify(execFile);
const pluginsDir = fileURLToPath(new URL('../../cms-plugins/', import.meta.url));

function phpFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? phpFiles(full) : /\.(php|module|inc|install)$/.test(entry.name) ? [full] : [];
  });
}

describe('CMS-side code', () => {
  it('every PHP file passes php -l', async () => {
    await ensureWordPressPackages();
    const files = phpFiles(pluginsDir);
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const { stdout } = await run('php', ['-l', file]);
      expect(stdout, file).toMatch(/No syntax errors detected/);
    }
  }, 120_000);

  it('every HTML pattern the modules render compiles as browsers compile it (the v flag)', () => {
    const patterns = phpFiles(pluginsDir).flatMap((file) => {
      const source = readFileSync(file, 'utf8');
      // Drupal's '#pattern' => '…' and WordPress's 'pattern' => '…' of a field passed to service_widget_render_field();
      // not the REST arguments' patterns, which PHP checks, anchored (^…$) as HTML patterns never are.
      return [...source.matchAll(/'#?pattern' => '(?!\^)([^']+)'/g)].map((match) => ({ file, pattern: match[1]!.replaceAll('\\\\', '\\') }));
    });
    expect(patterns.map((p) => path.basename(p.file)).sort()).toEqual(['SettingsForm.php', 'settings.php']);
    for (const { file, pattern } of patterns) expect(() => new RegExp(`^(?:${pattern})$`, 'v'), `${file}: ${pattern}`).not.toThrow();
  });
});
