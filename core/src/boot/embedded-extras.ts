import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as Embedded from '@service/embedded';
import { ConfigError } from '../config/index.ts';

export type EmbeddedExtras = typeof Embedded;

/** Run from core/dist (built), the extras' bundle is loaded; from core/src (tests, `pnpm dev`, tsx tools), their TypeScript. */
const BUILT = import.meta.url.endsWith('.js');

/**
 * The embedded database and registry (`@service/embedded`: Verdaccio, mongodb-memory-server and
 * the FerretDB launcher), loaded only when this process starts the embedded default. A
 * production install leaves the package out (ADR 0026); then this says what to do instead of
 * failing on a missing module.
 */
export async function loadEmbeddedExtras(): Promise<EmbeddedExtras> {
  let packageDir: string;
  try {
    packageDir = path.dirname(createRequire(import.meta.url).resolve('@service/embedded/package.json'));
  } catch {
    throw embeddedExtrasMissing();
  }
  const entry = path.join(packageDir, BUILT ? 'dist/index.js' : 'src/index.ts');
  if (!existsSync(entry)) throw new Error(`the embedded database and registry are installed but not built (${entry} is missing): run \`pnpm build\``);
  try {
    return (await import(pathToFileURL(entry).href)) as EmbeddedExtras;
  } catch (error) {
    // The package is there but not its dependencies (a production install of its directory).
    if ((error as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND') throw embeddedExtrasMissing();
    throw error;
  }
}

const embeddedExtrasMissing = () =>
  new ConfigError([
    {
      variable: 'MONGODB_URI',
      reason:
        'is unset, so the service would start its embedded database and registry, but this install leaves them out (the package @service/embedded, with Verdaccio and mongodb-memory-server). ' +
        'Set MONGODB_URI to your MongoDB server, or install the embedded extras for trying the service: `pnpm install --frozen-lockfile` (the full install) in the checkout, then `pnpm start`. ' +
        'See docs/operations.md, "Production install".',
    },
  ]);
