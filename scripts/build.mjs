#!/usr/bin/env node
/**
 * Builds what the service and the MCP server run, each part only when its inputs changed
 * (`pnpm start` runs this on every start): the widget bundle, core compiled to core/dist, the
 * embedded database and registry (embedded/dist), the admin app (Remix), the web server and the
 * MCP server as JavaScript. `--force` rebuilds all.
 *
 * The web server, the admin app's server build, the embedded extras and the MCP server import core
 * from core/dist by relative path, so one process loads one copy of core, with no TypeScript
 * loader at run time.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { coreDistPath } from './core-dist.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const at = (...parts) => path.join(root, ...parts);
const force = process.argv.includes('--force');
const stampFile = at('node_modules', '.cache', 'service-build.json');

function filesUnder(entry) {
  const full = at(entry);
  if (!existsSync(full)) return [];
  if (!statSync(full).isDirectory()) return [entry];
  return readdirSync(full, { withFileTypes: true })
    .filter((item) => item.name !== 'node_modules' && item.name !== 'dist' && item.name !== 'build')
    .flatMap((item) => filesUnder(path.join(entry, item.name)));
}

/** A digest of the inputs' names and contents (contents, not times: a checkout or copy keeps them). */
function fingerprint(inputs) {
  const hash = createHash('sha256');
  for (const file of inputs.flatMap(filesUnder).sort()) hash.update(file).update('\0').update(readFileSync(at(file))).update('\0');
  return hash.digest('hex');
}

const run = (command, args, cwd = root) => execFileSync(command, args, { cwd, stdio: 'inherit' });

/** The server entries: their own TypeScript bundled, npm packages left to Node, core taken from core/dist. */
async function bundleEntry(entry, outfile) {
  await build({
    entryPoints: [at(entry)],
    outfile: at(outfile),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    packages: 'external',
    sourcemap: true,
    logLevel: 'warning',
    plugins: [
      {
        name: 'core-from-dist',
        setup(builder) {
          builder.onResolve({ filter: /^@service\/core(\/|$)/ }, (args) => ({ path: coreDistPath(args.path, path.dirname(at(outfile))), external: true }));
        },
      },
    ],
  });
}

const shared = ['pnpm-lock.yaml', 'tsconfig.json', 'scripts/build.mjs', 'scripts/core-dist.mjs'];
const parts = [
  { name: 'widget', inputs: ['widget/src', 'widget/package.json', 'widget/vite.config.ts', 'widget/tsconfig.json', 'core/src/live-post'], outputs: ['widget/dist/widget.js'], build: () => run('pnpm', ['--filter', '@service/widget', 'build']) },
  {
    name: 'core',
    inputs: ['core/src', 'core/package.json', 'core/tsconfig.json', 'core/tsconfig.build.json'],
    outputs: ['core/dist/index.js'],
    build: () => {
      rmSync(at('core', 'dist'), { recursive: true, force: true });
      run(at('node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.build.json'], at('core'));
    },
  },
  // The embedded database and registry, loaded by core only on the embedded default (ADR 0026).
  { name: 'embedded extras', inputs: ['embedded/src', 'embedded/package.json'], outputs: ['embedded/dist/index.js'], build: () => bundleEntry('embedded/src/index.ts', 'embedded/dist/index.js') },
  { name: 'admin app', inputs: ['web/app', 'web/vite.config.ts', 'web/package.json', 'web/tsconfig.json', 'core/src'], outputs: ['web/build/server/index.js'], build: () => run('pnpm', ['--filter', '@service/web', 'build']) },
  { name: 'web server', inputs: ['web/server.ts', 'web/seam-routes.ts', 'web/app'], outputs: ['web/build/server.js'], build: () => bundleEntry('web/server.ts', 'web/build/server.js') },
  { name: 'MCP server', inputs: ['mcp-server/src', 'mcp-server/package.json'], outputs: ['mcp-server/dist/main.js'], build: () => bundleEntry('mcp-server/src/main.ts', 'mcp-server/dist/main.js') },
];

async function main() {
  const stamps = existsSync(stampFile) && !force ? JSON.parse(readFileSync(stampFile, 'utf8')) : {};
  for (const part of parts) {
    const digest = fingerprint([...part.inputs, ...shared]);
    if (stamps[part.name] === digest && part.outputs.every((output) => existsSync(at(output)))) {
      console.log(`build: ${part.name} is up to date`);
      continue;
    }
    const started = Date.now();
    console.log(`build: ${part.name}…`);
    await part.build();
    stamps[part.name] = digest;
    mkdirSync(path.dirname(stampFile), { recursive: true });
    writeFileSync(stampFile, JSON.stringify(stamps, null, 2));
    console.log(`build: ${part.name} built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await main();
}
