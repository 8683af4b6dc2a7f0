import semver from 'semver';
import { compileParsed, parseSource, reviewSource, scopeOf, type AgentSource, type ReviewResult } from '../agents/index.ts';
import { isAdmin, type Actor } from '../auth/index.ts';
import { DomainError } from '../errors/index.ts';
import type { ExtensionView } from '../extensions/index.ts';
import { packSource } from './pack.ts';
import { publishTarball } from './publish-to-registry.ts';
import type { DestinationName } from './resolver.ts';
import type { RegistryDeps } from './deps.ts';

export type VersionBump = 'patch' | 'minor' | 'major';
export const PUBLISH_STEPS = [
  { id: 'compile', label: 'Compile' },
  { id: 'review', label: 'Review' },
  { id: 'pack', label: 'Pack tarball' },
  { id: 'resolve', label: 'Resolve destination' },
  { id: 'publish', label: 'Publish to registry' },
  { id: 'record', label: 'Update origin' },
  { id: 'audit', label: 'Audit' },
] as const;
export type PublishStepId = (typeof PUBLISH_STEPS)[number]['id'];
export type Progress = (step: PublishStepId, state: 'running' | 'done', detail?: string) => void | Promise<void>;

/** Authoring is for admins (UI) and the service's own workers; never for inbound callers. */
export function assertMayAuthor(actor: Actor): void {
  if (!isAdmin(actor) && actor.type !== 'worker') throw new DomainError('FORBIDDEN', 'Only an admin may author or publish extensions');
}

/** The same package apart from its version (key order aside): compiling it again would change nothing. */
export function sameSource(a: AgentSource, b: AgentSource): boolean {
  const withoutVersion = ({ manifest, flow }: AgentSource) => canonicalJson({ manifest: { ...(manifest as object), version: undefined }, flow });
  return withoutVersion(a) === withoutVersion(b);
}

function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item && typeof item === 'object' && !Array.isArray(item) ? Object.fromEntries(Object.entries(item).filter(([, v]) => v !== undefined).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))) : item,
  );
}

export function createSourceOperations(deps: RegistryDeps) {
  const { reader, writer, identity } = deps;

  const reviewContext = () => reader.reviewContext(identity.vendorScope);

  /** `agent_source_compile`: derives the runtime fields and upserts the template record. */
  async function compile(actor: Actor, source: AgentSource, options: { unlessPublished?: boolean } = {}): Promise<ExtensionView> {
    assertMayAuthor(actor);
    const parsed = parseSource(source);
    if (!parsed.ok) throw new DomainError('REVIEW_FAILED', 'The package does not match the extension schema', { details: parsed.findings });
    const { manifest } = parsed.parsed;
    const scope = scopeOf(manifest.name);
    if (scope !== identity.vendorScope) {
      throw new DomainError('REVIEW_FAILED', 'The package is named outside this instance\'s scope', {
        details: [{ path: 'package.json:name', reason: `scope ${scope} is outside this instance's scope ${identity.vendorScope}` }],
      });
    }
    const existing = await reader.getByPackageName(manifest.name);
    if (existing?.status === 'installed') throw new DomainError('CONFLICT', `${manifest.name} was pulled from a registry; author it under another name`);
    if (existing?.status === 'published') {
      if (sameSource(existing.source as AgentSource, source)) return existing;
      if (options.unlessPublished) {
        throw new DomainError('CONFLICT', `${manifest.name} is published at ${existing.version} and was changed since; starting from the example replaces its source (your next publish is a new version). Confirm to replace it.`);
      }
      // A published record never goes back a version: its next publish bumps from what the registry holds.
      if (!semver.gt(manifest.version, existing.version)) return upsert({ manifest: { ...(source.manifest as object), version: existing.version }, flow: source.flow }, existing);
    }
    return upsert(source, existing);
  }

  function upsert(source: AgentSource, existing: ExtensionView | null): Promise<ExtensionView> {
    const parsed = parseSource(source);
    if (!parsed.ok) throw new DomainError('REVIEW_FAILED', 'The package does not match the extension schema', { details: parsed.findings });
    const { manifest } = parsed.parsed;
    const compiled = compileParsed(parsed.parsed, existing?.compiled.supportedVersions ?? []);
    const origin = existing && existing.status !== 'draft'
      ? existing.origin
      : { packageName: manifest.name, version: manifest.version, destinationId: null, scope: identity.vendorScope, visibility: 'private' as const, registryUrl: '' };
    return writer.upsertAuthored(source, compiled, origin);
  }

  /** `agent_source_review`: deterministic findings for a stored extension or a source. */
  async function review(actor: Actor, target: { extensionId: string } | { source: AgentSource }): Promise<ReviewResult> {
    assertMayAuthor(actor);
    const source = 'source' in target ? target.source : (await getOwn(target.extensionId)).source;
    return reviewSource(source, await reviewContext());
  }

  async function getOwn(extensionId: string): Promise<ExtensionView> {
    const extension = await reader.get(extensionId);
    if (!extension) throw new DomainError('NOT_FOUND', 'Extension not found');
    return extension;
  }

  /**
   * `agent_source_publish`: bumps the version, packs, and runs steps 5 to 7 of the publish flow.
   * Nothing is recorded unless the registry accepted the package.
   */
  async function publish(
    actor: Actor,
    extensionId: string,
    options: { destination?: DestinationName; bump?: VersionBump } = {},
    progress: Progress = () => {},
  ): Promise<ExtensionView> {
    assertMayAuthor(actor);
    const destinationName = options.destination ?? 'private';
    const extension = await getOwn(extensionId);
    if (extension.status === 'installed') throw new DomainError('CONFLICT', `${extension.packageName} was pulled from a registry; only packages authored here are published`);
    const step = async <T>(id: PublishStepId, work: () => Promise<T> | T, detail?: (value: T) => string): Promise<T> => {
      await progress(id, 'running');
      const value = await work();
      await progress(id, 'done', detail?.(value));
      return value;
    };

    const version = semver.inc(extension.version, options.bump ?? 'patch');
    if (!version) throw new DomainError('VALIDATION_FAILED', `cannot bump version ${extension.version}`);
    const source: AgentSource = { manifest: { ...(extension.source.manifest as object), version }, flow: extension.source.flow };

    const compiled = await step('compile', () => {
      const parsed = parseSource(source);
      if (!parsed.ok) throw new DomainError('REVIEW_FAILED', 'The package does not match the extension schema', { details: parsed.findings });
      return { parsed: parsed.parsed, template: compileParsed(parsed.parsed, extension.compiled.supportedVersions) };
    }, ({ template }) => `${template.packageName}@${template.version}`);

    await step('review', async () => {
      const result = reviewSource(source, await reviewContext());
      if (!result.passed) throw new DomainError('REVIEW_FAILED', `Review found ${result.findings.length} problem(s)`, { details: result.findings });
    }, () => 'passed');

    const tarball = await step('pack', () => packSource(source, compiled.parsed.manifest.service.flow), (t) => `${t.size} bytes, ${t.integrity.slice(0, 20)}…`);
    try {
      const destination = await step('resolve', () => deps.resolver.forPublish(actor, destinationName), (d) => `${d.name} → ${d.registryUrl} (${d.routingMode})`);
      await step('publish', () => publishTarball(deps, destination, tarball.file, identity.vendorScope), () => `${compiled.template.packageName}@${version}`);
      const updated = await step('record', () =>
        writer.markPublished(extension.id, {
          version,
          source,
          compiled: compiled.template,
          integrity: tarball.integrity,
          origin: {
            packageName: compiled.template.packageName,
            version,
            scope: identity.vendorScope,
            destinationId: destination.destinationId,
            visibility: destinationName,
            registryUrl: destination.registryUrl,
          },
        }),
      );
      await step('audit', () =>
        deps.audit.record(actor, {
          action: 'publish',
          resourceType: 'extension_registry',
          resourceId: extension.id,
          details: { packageName: updated.packageName, version, destination: destinationName, registryUrl: destination.registryUrl, integrity: tarball.integrity },
        }),
      );
      return updated;
    } finally {
      await tarball.dispose();
    }
  }

  return { compile, review, publish };
}

export type SourceOperations = ReturnType<typeof createSourceOperations>;
