import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

/** The tsx loader as a file URL for `--import`, resolved from core, whatever the working directory. */
export function tsxLoaderUrl(): string {
  return pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
}
