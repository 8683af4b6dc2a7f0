import { createTwoFilesPatch } from 'diff';
import { compileParsed, parseSource, reviewSource, type AgentSource, type CompiledTemplate, type ReviewFinding } from '../agents/index.ts';
import { IMPORT_LIMITS, packageFromArchive, readTarGz, readZip, type ArchiveLimits } from '../archive/index.ts';
import { DomainError } from '../errors/index.ts';
import type { ExtensionReader, ExtensionView } from '../extensions/index.ts';
import type { GithubClient, GithubLocation } from './github.ts';
import { classifyLicense, type LicenseVerdict } from './license.ts';

export const IMPORT_STEPS = [
  { id: 'download', label: 'Download' },
  { id: 'unpack', label: 'Unpack' },
  { id: 'compile', label: 'Compile' },
  { id: 'review', label: 'Review' },
  { id: 'license', label: 'License' },
  { id: 'install', label: 'Install' },
] as const;
export type ImportStepId = (typeof IMPORT_STEPS)[number]['id'];
export type StepProgress = (step: ImportStepId, state: 'running' | 'done' | 'waiting', detail?: string) => Promise<void>;

/** Where the package comes from, as the pipeline reads it. */
export type PackageOrigin =
  | { source: 'zip'; fileName: string; bytes: Buffer }
  | { source: 'github'; location: GithubLocation; commitSha?: string }
  | { source: 'chat'; draft: AgentSource };

export interface ShownFile {
  name: string;
  text: string;
}

/** A package that passed compile and review, held until it is installed. */
export interface StagedPackage {
  packageName: string;
  version: string;
  source: AgentSource;
  /** What the admin sees before anything is saved: package.json, the flow file, the license text. */
  files: ShownFile[];
  license: LicenseVerdict;
  commitSha?: string;
  /** For an update: the installed version and a unified diff of the files. */
  previousVersion?: string;
  diff?: string;
}

export interface StageDeps {
  vendorScope: string;
  reader: ExtensionReader;
  github: GithubClient;
  limits?: ArchiveLimits;
}

/**
 * download → unpack → compile → review → license verdict, with nothing written: review runs
 * exactly as for a package authored here (including the scope rule). `target` is the installed
 * extension an update replaces.
 */
export async function stagePackage(deps: StageDeps, from: PackageOrigin, progress: StepProgress, target?: ExtensionView): Promise<StagedPackage> {
  const limits = deps.limits ?? IMPORT_LIMITS;
  let source: AgentSource;
  let licenseText: string | null = null;
  let commitSha: string | undefined;

  await progress('download', 'running');
  if (from.source === 'github') {
    commitSha = from.commitSha ?? (await deps.github.resolveCommit(from.location));
    const bytes = await deps.github.downloadTarball(from.location, commitSha, limits.maxArchiveBytes);
    await progress('download', 'done', `${from.location.owner}/${from.location.repo}@${commitSha.slice(0, 7)}, ${bytes.length} bytes`);
    await progress('unpack', 'running');
    const files = await readTarGz(bytes, limits);
    // GitHub puts everything under one `<owner>-<repo>-<sha7>/` folder.
    const top = [...files.keys()][0]?.split('/')[0] ?? '';
    const unpacked = packageFromArchive(files, from.location.folder ? `${top}/${from.location.folder}` : top);
    ({ source, licenseText } = unpacked);
    await progress('unpack', 'done', `${files.size} files, package in /${from.location.folder ?? ''}`);
  } else if (from.source === 'zip') {
    await progress('download', 'done', `uploaded ${from.fileName}, ${from.bytes.length} bytes`);
    await progress('unpack', 'running');
    const files = await readZip(from.bytes, limits);
    const unpacked = packageFromArchive(files);
    ({ source, licenseText } = unpacked);
    await progress('unpack', 'done', `${files.size} files, package in /${unpacked.root}`);
  } else {
    source = from.draft;
    await progress('download', 'done', 'drafted in chat');
    await progress('unpack', 'done', 'nothing to unpack');
  }

  await progress('compile', 'running');
  const parsed = parseSource(source);
  if (!parsed.ok) throw reviewFailed('The package does not match the extension schema', parsed.findings);
  const { manifest } = parsed.parsed;
  if (target && target.packageName !== manifest.name) {
    throw new DomainError('CONFLICT', `the package is now ${manifest.name}; ${target.packageName} can only be updated from a package of the same name`);
  }
  if (!target) {
    const existing = await deps.reader.getByPackageName(manifest.name);
    if (existing) throw new DomainError('CONFLICT', `${manifest.name} is already on this instance (${existing.origin.importedFrom ? `imported from ${existing.origin.importedFrom.source}` : existing.status}); update it from its page instead`);
  }
  await progress('compile', 'done', `${manifest.name}@${manifest.version}`);

  await progress('review', 'running');
  const review = reviewSource(source, await deps.reader.reviewContext(deps.vendorScope));
  if (!review.passed) throw reviewFailed(`Review found ${review.findings.length} problem(s)`, review.findings);
  await progress('review', 'done', 'passed');

  const license = classifyLicense(source.manifest, licenseText);
  const files = shownFiles(source, manifest.service.flow, licenseText);
  return {
    packageName: manifest.name,
    version: manifest.version,
    source,
    files,
    license,
    ...(commitSha ? { commitSha } : {}),
    ...(target
      ? { previousVersion: target.version, diff: filesDiff(shownFiles(target.source, flowFileOf(target.source), null), files.filter((f) => f.name !== 'LICENSE')) }
      : {}),
  };
}

export function compileStaged(staged: StagedPackage, previous?: CompiledTemplate): CompiledTemplate {
  const parsed = parseSource(staged.source);
  if (!parsed.ok) throw reviewFailed('The package does not match the extension schema', parsed.findings);
  return compileParsed(parsed.parsed, previous?.supportedVersions ?? []);
}

function reviewFailed(message: string, findings: ReviewFinding[]): DomainError {
  return new DomainError('REVIEW_FAILED', `${message}: ${findings.map((f) => `${f.path} ${f.reason}`).join('; ')}`, { details: findings });
}

function flowFileOf(source: AgentSource): string {
  const flow = (source.manifest as { service?: { flow?: unknown } }).service?.flow;
  return typeof flow === 'string' ? flow : 'flow.json';
}

/** A package's files as the admin sees them before anything is saved. */
export function shownFiles(source: AgentSource, flowFile: string, licenseText: string | null): ShownFile[] {
  return [
    { name: 'package.json', text: `${JSON.stringify(source.manifest, null, 2)}\n` },
    { name: flowFile, text: `${JSON.stringify(source.flow, null, 2)}\n` },
    ...(licenseText ? [{ name: 'LICENSE', text: licenseText }] : []),
  ];
}

function filesDiff(before: ShownFile[], after: ShownFile[]): string {
  const names = [...new Set([...before, ...after].map((f) => f.name))];
  return names
    .map((name) => createTwoFilesPatch(`a/${name}`, `b/${name}`, before.find((f) => f.name === name)?.text ?? '', after.find((f) => f.name === name)?.text ?? '', '', '', { context: 3 }))
    .filter((patch) => patch.includes('@@'))
    .join('\n');
}
