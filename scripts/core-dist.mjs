/**
 * Where `@service/core[/x]` lives once built: core's package exports name TypeScript sources
 * (`./src/...ts`), and `pnpm build` compiles them with the same layout to `core/dist`. The built
 * servers (scripts/build.mjs) and the admin app's server build (web/vite.config.ts) import core
 * by this relative path, so a process loads one copy of it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const coreDir = fileURLToPath(new URL('../core/', import.meta.url));
const exportsMap = JSON.parse(readFileSync(path.join(coreDir, 'package.json'), 'utf8')).exports;

/** `@service/core[/x]` as a relative import from `fromDir` of its compiled module in core/dist. */
export function coreDistPath(specifier, fromDir) {
  const subpath = `.${specifier.slice('@service/core'.length)}`;
  const source = exportsMap[subpath] ?? exportsMap['./*'].replace('*', subpath.slice(2));
  const compiled = path.join(coreDir, source.replace(/^\.\/src\//, 'dist/').replace(/\.ts$/, '.js'));
  const relative = path.relative(fromDir, compiled).split(path.sep).join('/');
  return relative.startsWith('.') ? relative : `./${relative}`;
}
