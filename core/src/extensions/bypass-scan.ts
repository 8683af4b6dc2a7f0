import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export interface Bypass {
  file: string;
  line: number;
  rule: string;
  text: string;
}

/**
 * The only modules allowed to touch what the visibility filter guards. Everything else must
 * read extension records through the ExtensionReader and registry settings through the resolver.
 */
export const BYPASS_RULES = [
  {
    rule: 'imports the registry-config loader (use the destination resolver)',
    pattern: /from\s+['"][^'"]*registry\/deployment-config(\.ts)?['"]|from\s+['"]\.\/deployment-config(\.ts)?['"]/,
    allowed: ['core/src/registry/resolver.ts'],
  },
  {
    rule: 'queries the extension collection directly (use the ExtensionReader)',
    pattern: /\.Extension\b|\bExtension\s*[,}][^;\n]*=\s*[\w.]*models|collection\(\s*['"]extensions['"]\s*\)|models\/extension(\.ts)?['"]/,
    allowed: ['core/src/extensions/reader.ts', 'core/src/extensions/writer.ts', 'core/src/db/models/index.ts', 'core/src/extensions/bypass-scan.ts'],
  },
  {
    rule: 'opens destination tokens (only the registry-config loader may)',
    pattern: /\.openTokens\(/,
    allowed: ['core/src/registry/deployment-config.ts', 'core/src/registry/destination-store.ts'],
  },
] as const;

const SKIP_DIRS = new Set(['node_modules', 'build', 'dist', '.cache']);

/** Scans `dirs` (relative to `root`) for production modules that bypass the visibility filter. Tests are exempt. */
export function findVisibilityBypasses(root: string, dirs: string[]): Bypass[] {
  const found: Bypass[] = [];
  for (const dir of dirs) {
    for (const file of walk(path.join(root, dir))) {
      const relative = path.relative(root, file).split(path.sep).join('/');
      if (/\.test\.tsx?$/.test(relative)) continue;
      const lines = readFileSync(file, 'utf8').split('\n');
      for (const { rule, pattern, allowed } of BYPASS_RULES) {
        if ((allowed as readonly string[]).includes(relative)) continue;
        lines.forEach((text, index) => {
          if (pattern.test(text)) found.push({ file: relative, line: index + 1, rule, text: text.trim() });
        });
      }
    }
  }
  return found;
}

function* walk(dir: string): Generator<string> {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    if (entry.isDirectory()) {
      if (!SKIP_DIRS.has(entry.name)) yield* walk(path.join(dir, entry.name));
    } else if (/\.(ts|tsx)$/.test(entry.name)) {
      yield path.join(dir, entry.name);
    }
  }
}
