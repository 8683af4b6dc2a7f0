import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AgentSource } from './agent-source.ts';

/** The example packages shipped in `examples/agents/`, written in the `@local` scope. */
export const EXAMPLES_DIR = fileURLToPath(new URL('../../../examples/agents/', import.meta.url));
const EXAMPLE_SCOPE = '@local';

export function listExamples(): string[] {
  return readdirSync(EXAMPLES_DIR, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

/**
 * Reads an example package and moves it into `scope`: its name and its dependencies on other
 * examples are renamed, since review accepts only packages inside the instance's scope.
 */
export function loadExample(slug: string, scope: string): AgentSource {
  if (!listExamples().includes(slug)) throw new Error(`no example package named ${slug}`);
  const dir = path.join(EXAMPLES_DIR, slug);
  const rescope = (text: string) => text.split(`"${EXAMPLE_SCOPE}/`).join(`"${scope}/`);
  const manifest = JSON.parse(rescope(readFileSync(path.join(dir, 'package.json'), 'utf8'))) as { service?: { flow?: string } };
  const flowFile = manifest.service?.flow ?? 'flow.json';
  const flow = JSON.parse(rescope(readFileSync(path.join(dir, flowFile), 'utf8'))) as unknown;
  return { manifest, flow };
}
