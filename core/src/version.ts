import { readFileSync } from 'node:fs';

/** The service version, from core's package.json. */
export const SERVICE_VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
