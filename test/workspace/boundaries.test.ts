/**
 * The module boundaries `pnpm lint` checks (ADR 0024): the workspace keeps them, every temporary
 * allowlist entry still excuses something real, and each rule fails a small tree that breaks it,
 * naming the rule. The trees run the very script and configuration files `pnpm lint` runs.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { afterAll, describe, expect, it } from 'vitest';
import { TEMPORARY_ALLOWLIST } from '../../.dependency-cruiser.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const script = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts['lint:boundaries']!;

/** `pnpm lint:boundaries` as pnpm runs it (the checkout's bin folder first on the PATH), in `cwd`. */
function checkBoundaries(cwd: string, allowlist?: unknown[]): { status: number | null; output: string } {
  const run = spawnSync('sh', ['-c', script], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, ...(allowlist ? { SERVICE_BOUNDARIES_TEST_ALLOWLIST: JSON.stringify(allowlist) } : {}), PATH: `${path.join(root, 'node_modules/.bin')}${path.delimiter}${process.env.PATH}`, NO_COLOR: '1' },
  });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

/** A workspace of the project's shape in a temporary folder, with the project's boundary configuration. */
function workspace(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'boundaries-'));
  for (const config of ['.dependency-cruiser.mjs', '.dependency-cruiser-capabilities.mjs']) cpSync(path.join(root, config), path.join(dir, config));
  const all: Record<string, string> = {
    'web/tsconfig.json': JSON.stringify({ compilerOptions: { baseUrl: '.', paths: { '~/*': ['./app/*'] } } }),
    'core/package.json': JSON.stringify({ name: '@service/core', type: 'module', exports: { '.': './src/index.ts', './*': './src/*/index.ts' } }),
    'mcp-server/src/main.ts': "import { createServices } from '@service/core';\nexport const main = createServices;\n",
    'widget/src/widget.ts': 'export const widget = 1;\n',
    'test/helpers/helper.ts': "export const helper = 1;\n",
    'scripts/build.mjs': 'export const build = 1;\n',
    ...CLEAN_TREE,
    ...files,
  };
  for (const [file, text] of Object.entries(all)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
  for (const pkg of ['web', 'mcp-server']) {
    mkdirSync(path.join(dir, pkg, 'node_modules/@service'), { recursive: true });
    symlinkSync(path.join(dir, 'core'), path.join(dir, pkg, 'node_modules/@service/core'));
  }
  made.push(dir);
  return dir;
}
const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** Two capabilities, a root, the db capability, a route, a router and tests that keep every rule. */
const CLEAN_TREE: Record<string, string> = {
  'core/src/index.ts': "export { createServices } from './services.ts';\n",
  'core/src/services.ts': "import { alpha } from './alpha/index.ts';\nimport { beta } from './beta/index.ts';\nexport const createServices = () => ({ alpha, beta });\n",
  'core/src/alpha/index.ts': "export { alpha } from './alpha.ts';\n",
  'core/src/alpha/alpha.ts': "import { beta } from '../beta/index.ts';\nimport { inner } from './inner/detail.ts';\nexport const alpha = beta + inner;\n",
  'core/src/alpha/inner/detail.ts': 'export const inner = 1;\n',
  'core/src/alpha/alpha.test.ts': "import { inner } from './inner/detail.ts';\nimport { createServices } from '../index.ts';\nexport const seen = [inner, createServices];\n",
  'core/src/beta/index.ts': "export { beta } from './beta.ts';\n",
  'core/src/beta/beta.ts': 'export const beta = 1;\n',
  'core/src/db/index.ts': 'export const models = {};\n',
  'web/app/routes/page.tsx': "import { alpha } from '@service/core/alpha';\nimport { shared } from '../ui/shared.ts';\nexport const loader = () => alpha + shared;\n",
  'web/app/routes/page.test.ts': "import { models } from '@service/core/db';\nimport { loader } from './page.tsx';\nexport const seen = [models, loader];\n",
  'web/app/ui/shared.ts': 'export const shared = 1;\n',
  'web/app/trpc/routers/things.server.ts': "import { beta } from '@service/core/beta';\nexport const thingsRouter = beta;\n",
  'web/app/trpc/router.server.ts': "import { thingsRouter } from './routers/things.server.ts';\nexport const appRouter = { thingsRouter };\n",
};

describe('the module boundaries', () => {
  it('hold in this workspace, and every allowlisted import is still there (else its entry goes)', () => {
    const { status, output } = checkBoundaries(root);
    expect(output).not.toMatch(/^\s*error /m);
    expect(status).toBe(0);
    TEMPORARY_ALLOWLIST.forEach((entry, index) => {
      if (entry.to) expect(output, `temporary allowlist entry ${index + 1} is stale`).toContain(`info temporary-allowlist/${index + 1}: ${entry.from} → ${entry.to}`);
    });
  });

  it('pass a tree that keeps them', () => {
    const { status, output } = checkBoundaries(workspace({}));
    expect(output).toContain('no dependency violations found');
    expect(status).toBe(0);
  });

  it('fail each broken module rule, naming the rule and the import', () => {
    const { status, output } = checkBoundaries(workspace({
      // A cycle inside one capability.
      'core/src/beta/first.ts': "import { second } from './second.ts';\nexport const first = () => second;\n",
      'core/src/beta/second.ts': "import { first } from './first.ts';\nexport const second = () => first;\n",
      // Past another capability's index.ts, and past core's root index.ts.
      'core/src/alpha/deep.ts': "import { beta } from '../beta/beta.ts';\nexport const deep = beta;\n",
      'core/src/alpha/root.ts': "import { createServices } from '../services.ts';\nexport const root = createServices;\n",
      // A test beside alpha reaching into beta's files.
      'core/src/alpha/deep.test.ts': "import { beta } from '../beta/beta.ts';\nexport const seen = beta;\n",
      // Core importing web; web importing core's files; web importing the database layer.
      'core/src/beta/to-web.ts': "import { shared } from '../../../web/app/ui/shared.ts';\nexport const toWeb = shared;\n",
      'web/app/ui/deep.server.ts': "import { beta } from '../../../core/src/beta/beta.ts';\nexport const deep = beta;\n",
      'web/app/ui/models.server.ts': "import { models } from '@service/core/db';\nexport const all = models;\n",
      'web/app/ui/mongoose.server.ts': "import mongoose from 'mongoose';\nexport const connection = mongoose.connection;\n",
      // A route importing a route; a router importing a router.
      'web/app/routes/other.tsx': "import { loader } from './page.tsx';\nexport const other = loader;\n",
      'web/app/trpc/routers/more.server.ts': "import { thingsRouter } from './things.server.ts';\nexport const moreRouter = thingsRouter;\n",
    }));
    expect(status).not.toBe(0);
    for (const line of [
      'error no-circular: core/src/beta/first.ts →',
      'error core-capabilities-through-index: core/src/alpha/deep.ts → core/src/beta/beta.ts',
      'error core-capabilities-through-index: core/src/alpha/deep.test.ts → core/src/beta/beta.ts',
      'error core-root-through-index: core/src/alpha/root.ts → core/src/services.ts',
      'error core-imports-no-other-package: core/src/beta/to-web.ts → web/app/ui/shared.ts',
      'error core-reached-through-exports: web/app/ui/deep.server.ts → core/src/beta/beta.ts',
      'error web-uses-no-database-models: web/app/ui/models.server.ts → core/src/db/index.ts',
      'error web-uses-no-database-models: web/app/ui/mongoose.server.ts → mongoose',
      'error routes-are-leaves: web/app/routes/other.tsx → web/app/routes/page.tsx',
      'error routes-are-leaves: web/app/trpc/routers/more.server.ts → web/app/trpc/routers/things.server.ts',
    ]) expect(output).toContain(line);
    // Nothing else: the clean tree's imports (a test reading the database, a capability's own
    // nested files, the root index from a test) are not reported.
    expect(output.match(/^\s*error /gm)).toHaveLength(10);
  });

  it('fail a cycle between capabilities that no single file cycle shows', () => {
    const { status, output } = checkBoundaries(workspace({
      // beta/uses-gamma.ts → gamma/index.ts → gamma/gamma.ts → beta/index.ts: no file is on a cycle.
      'core/src/beta/uses-gamma.ts': "import { gamma } from '../gamma/index.ts';\nexport const usesGamma = gamma;\n",
      'core/src/gamma/index.ts': "export { gamma } from './gamma.ts';\n",
      'core/src/gamma/gamma.ts': "import { beta } from '../beta/index.ts';\nexport const gamma = beta;\n",
    }));
    expect(status).not.toBe(0);
    expect(output).toMatch(/error no-capability-cycles: core\/src\/beta →\s+core\/src\/gamma →\s+core\/src\/beta/);
    expect(output).not.toMatch(/error (?!no-capability-cycles)/);
  });

  it('allow a temporary allowlist entry only for its exact import, and print it', () => {
    const entry = { rule: 'core-capabilities-through-index', from: 'core/src/boot/start-services.ts', to: 'core/src/registry/embedded/embedded-registry.ts', why: 'a test entry' };
    const { status, output } = checkBoundaries(
      workspace({
        'core/src/registry/index.ts': "export const registry = 1;\n",
        'core/src/registry/embedded/embedded-registry.ts': 'export const embedded = 1;\n',
        'core/src/registry/other.ts': 'export const other = 1;\n',
        'core/src/boot/index.ts': "export { start } from './start-services.ts';\n",
        'core/src/boot/start-services.ts': "import { embedded } from '../registry/embedded/embedded-registry.ts';\nimport { other } from '../registry/other.ts';\nexport const start = embedded + other;\n",
      }),
      [...TEMPORARY_ALLOWLIST, entry],
    );
    expect(status).not.toBe(0);
    expect(output).toContain(`info temporary-allowlist/${TEMPORARY_ALLOWLIST.length + 1}: core/src/boot/start-services.ts → core/src/registry/embedded/embedded-registry.ts`);
    expect(output).toContain('error core-capabilities-through-index: core/src/boot/start-services.ts → core/src/registry/other.ts');
    expect(output.match(/^\s*error /gm)).toHaveLength(1);
  });
});

describe('web-uses-no-database-models, the eslint side', () => {
  const eslint = new ESLint({ cwd: root });
  const messagesOf = async (file: string, text: string) =>
    (await eslint.lintText(text, { filePath: path.join(root, file) }))[0]!.messages.filter((message) => message.message.startsWith('web-uses-no-database-models'));

  it('refuses the models or the connection taken from services in web, not in its tests', async () => {
    const text = 'export const read = (ctx: { services: { database: { models: unknown; connection: unknown } } }) => {\n'
      + '  const { connection } = ctx.services.database;\n  return [ctx.services.database.models, connection];\n};\n';
    expect((await messagesOf('web/app/ui/reads-models.server.ts', text)).map((message) => [message.line, message.severity])).toEqual([[2, 2], [3, 2]]);
    expect(await messagesOf('web/app/ui/reads-models.server.test.ts', text)).toEqual([]);
    expect(await messagesOf('web/app/ui/available.server.ts', 'export const up = (services: { database: { available(): boolean } }) => services.database.available();\n')).toEqual([]);
  });

});
