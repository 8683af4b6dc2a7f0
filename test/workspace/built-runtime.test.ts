/**
 * What `pnpm start` and the MCP bin run is built JavaScript that needs no dev dependency: every
 * package the builds import is a runtime dependency of the package that ships the file, core is
 * loaded from core/dist (one copy per process), and no TypeScript is left to load.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const jsUnder = (dir: string): string[] =>
  readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? jsUnder(path.join(dir, entry.name)) : entry.name.endsWith('.js') ? [path.join(dir, entry.name)] : [],
  );
const built: [owner: string, files: string[]][] = [
  ['web', ['web/build/server.js', 'web/build/server/index.js']],
  ['mcp-server', ['mcp-server/dist/main.js']],
  ['embedded', ['embedded/dist/index.js']],
  ['core', jsUnder('core/dist')],
];

/** The module specifiers a file imports, statically or dynamically. */
function specifiersOf(file: string): string[] {
  const source = readFileSync(path.join(root, file), 'utf8');
  // A specifier has no spaces, braces or dollars; that keeps out prose such as `… from "a, b"` or `from "${x}"` in strings.
  return [...source.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)["']([^"'\s,;(){}$]+)["']/gm)].map((match) => match[1]!);
}
const packageOf = (specifier: string) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');
const isBuiltin = (specifier: string) => specifier.startsWith('node:') || builtinModules.includes(specifier.split('/')[0]!);

describe('the built service and MCP server', () => {
  it('are rebuilt only when their inputs changed: after `pnpm build`, `pnpm start`’s build does nothing', () => {
    const output = execFileSync(process.execPath, [path.join(root, 'scripts/build.mjs')], { cwd: root, encoding: 'utf8' });
    expect(output.trim().split('\n')).toEqual(['widget', 'core', 'embedded extras', 'admin app', 'web server', 'MCP server'].map((part) => `build: ${part} is up to date`));
  });

  it.each(built)('%s: imports only its runtime dependencies, core from core/dist, and no TypeScript', (owner, files) => {
    const manifest = JSON.parse(readFileSync(path.join(root, owner, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
    expect(files.length).toBeGreaterThan(0);
    const problems: string[] = [];
    for (const file of files) {
      for (const specifier of specifiersOf(file)) {
        if (specifier.startsWith('.')) {
          if (specifier.endsWith('.ts')) problems.push(`${file}: imports TypeScript ${specifier}`);
          if (specifier.includes('core/') && !specifier.includes('core/dist/')) problems.push(`${file}: imports core outside core/dist: ${specifier}`);
        } else if (!isBuiltin(specifier)) {
          if (specifier.startsWith('@service/')) problems.push(`${file}: imports ${specifier} by package name (it would load core's TypeScript)`);
          else if (!manifest.dependencies?.[packageOf(specifier)]) problems.push(`${file}: imports ${packageOf(specifier)}, not a dependency of ${owner}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });
});
