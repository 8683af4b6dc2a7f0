import { isAdmin, type Actor } from '../auth/index.ts';
import { DomainError } from '../errors/index.ts';
import type { ExtensionView } from '../extensions/index.ts';
import type { RegistryDeps } from './deps.ts';
import { packSource } from './pack.ts';
import { publishTarball } from './publish-to-registry.ts';
import type { Progress } from './source-operations.ts';

/**
 * Promote to public (one way): republishes the current version to the public destination with
 * the same topology routing as a fresh publish, then flips `origin` to public.
 */
export function createPromote(deps: RegistryDeps) {
  /** The refusals that need no registry: no admin session, unknown, already public, never published. */
  async function promotable(actor: Actor, extensionId: string): Promise<ExtensionView> {
    if (!isAdmin(actor)) throw new DomainError('FORBIDDEN', 'Promotion to public requires an admin session');
    const extension = await deps.reader.get(extensionId);
    if (!extension) throw new DomainError('NOT_FOUND', 'Extension not found');
    if (extension.origin.visibility === 'public') {
      throw new DomainError('CONFLICT', `${extension.packageName} is already public; promotion is one-way and cannot be repeated`);
    }
    if (extension.status === 'draft') throw new DomainError('CONFLICT', `${extension.packageName} has never been published; publish it to the private destination first`);
    return extension;
  }

  async function promote(actor: Actor, extensionId: string, progress: Progress = () => {}): Promise<ExtensionView> {
    const extension = await promotable(actor, extensionId);

    await progress('resolve', 'running');
    const destination = await deps.resolver.forPublish(actor, 'public');
    await progress('resolve', 'done', `public → ${destination.registryUrl} (${destination.routingMode})`);

    await progress('pack', 'running');
    const manifest = extension.source.manifest as { service?: { flow?: string } };
    const tarball = await packSource(extension.source, manifest.service?.flow ?? 'flow.json');
    await progress('pack', 'done', `${tarball.size} bytes`);
    try {
      await progress('publish', 'running');
      await publishTarball(deps, destination, tarball.file, extension.origin.scope);
      await progress('publish', 'done', `${extension.packageName}@${extension.version}`);

      await progress('record', 'running');
      const updated = await deps.writer.markPublished(extension.id, {
        version: extension.version,
        source: extension.source,
        compiled: extension.compiled,
        integrity: tarball.integrity,
        origin: { ...extension.origin, visibility: 'public', destinationId: null, registryUrl: destination.registryUrl },
      });
      await progress('record', 'done');

      await progress('audit', 'running');
      deps.audit.record(actor, {
        action: 'promote',
        resourceType: 'extension_registry',
        resourceId: extension.id,
        details: { packageName: extension.packageName, version: extension.version, registryUrl: destination.registryUrl },
      });
      await progress('audit', 'done');
      return updated;
    } finally {
      await tarball.dispose();
    }
  }

  return { promote, promotable };
}
