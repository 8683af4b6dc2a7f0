import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import semver from 'semver';

const coreDir = fileURLToPath(new URL('../../', import.meta.url));

/** The Node range the project runs on: `engines.node` of the package (the same in every workspace package). */
export const REQUIRED_NODE: string = (
  JSON.parse(readFileSync(path.join(coreDir, 'package.json'), 'utf8')) as { engines: { node: string } }
).engines.node;

/** The Node binary `pnpm install` puts in the checkout (the `node` package from the npm registry). */
export const PROJECT_NODE: string = path.resolve(coreDir, '..', 'node_modules', 'node', 'bin', 'node');

/** Why this Node cannot run the project, or null when it can. */
export function nodeEngineProblem(
  version: string,
  execPath: string,
  required: string = REQUIRED_NODE,
  projectNode: string = PROJECT_NODE,
  projectNodeInstalled: boolean = existsSync(projectNode),
): string | null {
  if (semver.satisfies(version, required)) return null;
  const use = projectNodeInstalled
    ? `Start it with the project's Node instead: ${projectNode}`
    : `Run \`pnpm install\` in the checkout; it installs the project's Node at ${projectNode}`;
  return `This program needs Node ${required}; it was started by Node ${version} (${execPath}). ${use}`;
}
