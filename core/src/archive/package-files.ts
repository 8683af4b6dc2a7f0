import path from 'node:path';
import type { AgentSource } from '../agents/index.ts';
import { DomainError } from '../errors/index.ts';
import { safeEntryPath, type ArchiveFiles } from './archive.ts';

export interface PackageFiles {
  source: AgentSource;
  /** The text of LICENSE / LICENCE / COPYING (any extension) next to package.json, if any. */
  licenseText: string | null;
  /** The folder inside the archive the package was read from ('' for the root). */
  root: string;
}

const LICENSE_FILE = /^(licen[cs]e|copying)(\.(md|txt|markdown))?$/i;
const MAX_LICENSE_CHARS = 100_000;

const notAPackage = (reason: string) => new DomainError('VALIDATION_FAILED', `not an extension package: ${reason}`);

/**
 * The extension package inside an archive: in `folder` when given, else at the root or inside
 * the folder of its shallowest package.json (zip tools and GitHub put packages in a top folder).
 */
export function packageFromArchive(files: ArchiveFiles, folder?: string): PackageFiles {
  const root = folder !== undefined && folder !== '' ? safeEntryPath(folder) : defaultRoot(files);
  const at = (name: string) => (root ? `${root}/${name}` : name);
  const manifest = parseJson(files, at('package.json'), 'package.json');
  const declared = (manifest as { service?: { flow?: unknown } } | null)?.service?.flow;
  const flowFile = typeof declared === 'string' && /^[\w.-]+\.json$/.test(declared) ? declared : 'flow.json';
  const flow = parseJson(files, at(flowFile), flowFile);
  const licenseEntry = [...files.keys()].find((name) => path.posix.dirname(name) === (root || '.') && LICENSE_FILE.test(path.posix.basename(name)));
  const licenseText = licenseEntry ? files.get(licenseEntry)!.toString('utf8').slice(0, MAX_LICENSE_CHARS) : null;
  return { source: { manifest, flow }, licenseText, root };
}

function defaultRoot(files: ArchiveFiles): string {
  const manifests = [...files.keys()].filter((name) => name === 'package.json' || name.endsWith('/package.json'));
  if (manifests.length === 0) throw notAPackage('the archive has no package.json');
  const depth = (name: string) => name.split('/').length;
  const shallowest = Math.min(...manifests.map(depth));
  const candidates = manifests.filter((name) => depth(name) === shallowest);
  if (candidates.length > 1) throw notAPackage(`the archive holds several packages (${candidates.join(', ')}); import one at a time`);
  return path.posix.dirname(candidates[0]!).replace(/^\.$/, '');
}

function parseJson(files: ArchiveFiles, entry: string, label: string): unknown {
  const bytes = files.get(entry);
  if (!bytes) throw notAPackage(`${label} is missing (looked for ${entry})`);
  try {
    return JSON.parse(bytes.toString('utf8')) as unknown;
  } catch (error) {
    throw notAPackage(`${label} is not valid JSON (${(error as Error).message})`);
  }
}
