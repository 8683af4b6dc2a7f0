import semver from 'semver';
import ssri from 'ssri';
import { compileParsed, parseSource, reviewSource, scopeOf } from '../agents/index.ts';
import type { Actor } from '../auth/index.ts';
import { DomainError } from '../errors/index.ts';
import type { ExtensionView } from '../extensions/index.ts';
import type { RegistryDeps } from './deps.ts';
import { packumentPath, registryGetJson, registryGetTarball } from './registry-http.ts';
import type { DestinationName } from './resolver.ts';
import { readPackageTarball } from './unpack.ts';
import { assertMayAuthor } from './source-operations.ts';

interface Packument {
  name: string;
  'dist-tags'?: Record<string, string>;
  versions?: Record<string, { dist?: { tarball?: string; integrity?: string } }>;
}

/**
 * Pulls a package from a registry destination and installs it as an extension record:
 * packument → tarball → `dist.integrity` checked before anything is extracted → review → record.
 * Any failure installs nothing.
 */
export function createPull(deps: RegistryDeps) {
  return async function pull(actor: Actor, input: { packageName: string; version?: string; from: DestinationName }): Promise<ExtensionView> {
    assertMayAuthor(actor);
    const scope = scopeOf(input.packageName);
    if (!scope) throw new DomainError('VALIDATION_FAILED', `${input.packageName} is not a scoped package name`);
    const destination = await deps.resolver.forRead(actor, input.from);

    const packument = await registryGetJson<Packument>(deps.http, destination.registryUrl, packumentPath(input.packageName), destination.token);
    if (!packument) throw new DomainError('NOT_FOUND', `${input.packageName} is not in the ${input.from} registry`);
    const version = input.version ?? packument['dist-tags']?.latest;
    const manifest = version ? packument.versions?.[version] : undefined;
    if (!version || !semver.valid(version) || !manifest?.dist?.tarball || !manifest.dist.integrity) {
      throw new DomainError('NOT_FOUND', `${input.packageName}@${input.version ?? 'latest'} has no tarball with an integrity in the ${input.from} registry`);
    }

    const bytes = await registryGetTarball(deps.http, destination.registryUrl, manifest.dist.tarball, destination.token);
    if (!ssri.checkData(bytes, manifest.dist.integrity)) {
      deps.logger.warn('tarball integrity mismatch', { packageName: input.packageName, version, registryUrl: destination.registryUrl });
      throw new DomainError('INTEGRITY_MISMATCH', `${input.packageName}@${version}: the tarball does not match dist.integrity; nothing was installed`);
    }

    const source = await readPackageTarball(bytes);
    const parsed = parseSource(source);
    if (!parsed.ok) throw new DomainError('REVIEW_FAILED', 'The pulled package does not match the extension schema', { details: parsed.findings });
    if (parsed.parsed.manifest.name !== input.packageName || parsed.parsed.manifest.version !== version) {
      throw new DomainError('INTEGRITY_MISMATCH', `the tarball holds ${parsed.parsed.manifest.name}@${parsed.parsed.manifest.version}, not ${input.packageName}@${version}`);
    }
    // A pulled package lives in its publisher's scope: review everything but the scope rule.
    const result = reviewSource(source, await deps.reader.reviewContext(scope));
    if (!result.passed) throw new DomainError('REVIEW_FAILED', `Review found ${result.findings.length} problem(s) in the pulled package`, { details: result.findings });

    const installed = await deps.writer.install({
      source,
      compiled: compileParsed(parsed.parsed),
      integrity: manifest.dist.integrity,
      origin: {
        packageName: input.packageName,
        version,
        destinationId: destination.destinationId,
        scope,
        visibility: input.from,
        registryUrl: destination.registryUrl,
      },
    });
    deps.audit.record(actor, {
      action: 'install',
      resourceType: 'extension_registry',
      resourceId: installed.id,
      details: { packageName: input.packageName, version, from: input.from, registryUrl: destination.registryUrl },
    });
    return installed;
  };
}
