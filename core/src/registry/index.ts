import { listExamples, loadExample, type AgentSource } from '../agents/index.ts';
import type { Actor } from '../auth/index.ts';
import type { Sealer } from '../crypto/index.ts';
import type { AuditLog } from '../audit/index.ts';
import type { Models } from '../db/index.ts';
import { DomainError } from '../errors/index.ts';
import type { ExtensionReader, ExtensionWriter } from '../extensions/index.ts';
import type { OutboundHttp } from '../http/index.ts';
import type { Logger } from '../log/index.ts';
import { createDestinationStore } from './destination-store.ts';
import { createRegistryListing } from './listing.ts';
import { createNpmRunner, type NpmRunner } from './npm-cli.ts';
import { createPromote } from './promote.ts';
import { createPublishJobs } from './publish-jobs.ts';
import { createPull } from './pull.ts';
import { createDestinationResolver } from './resolver.ts';
import { createRegistrySettings } from './settings.ts';
import { assertMayAuthor, createSourceOperations, sameSource, type VersionBump } from './source-operations.ts';
import type { RegistryDeps } from './deps.ts';

export interface RegistryServiceDeps {
  models: Models;
  sealer: Sealer;
  identity: { vendorScope: string };
  reader: ExtensionReader;
  writer: ExtensionWriter;
  audit: AuditLog;
  logger: Logger;
  http: OutboundHttp;
  /** The set `http` exempts from the private-address rule (OutboundPolicy.exemptOrigins); settings fill it. */
  embeddedOrigins?: Set<string>;
  npm?: NpmRunner;
}

/** The registry seam: authoring operations, publish, pull, promote, listings and settings. */
export function createRegistryService(input: RegistryServiceDeps) {
  const destinations = createDestinationStore(input.models, input.sealer);
  const deps: RegistryDeps = {
    ...input,
    embeddedOrigins: input.embeddedOrigins ?? new Set(),
    destinations,
    resolver: createDestinationResolver({ models: input.models, destinations }),
    npm: input.npm ?? createNpmRunner(input.logger.child({ component: 'npm' })),
  };
  const sources = createSourceOperations(deps);
  const { promote, promotable } = createPromote(deps);
  const jobs = createPublishJobs(deps);

  const extensionFor = async (extensionId: string) => {
    const extension = await deps.reader.get(extensionId);
    if (!extension) throw new DomainError('NOT_FOUND', 'Extension not found');
    return extension;
  };

  return {
    compile: sources.compile,
    /** `agent_source_compile` on one of the shipped example packages, moved into this instance's scope. */
    async compileExample(actor: Actor, example: string, options: { overwrite?: boolean } = {}) {
      if (!listExamples().includes(example)) throw new DomainError('NOT_FOUND', `No example package named ${example}`);
      return sources.compile(actor, loadExample(example, deps.identity.vendorScope), { unlessPublished: !options.overwrite });
    },
    review: sources.review,
    publish: sources.publish,
    promote,
    pull: createPull(deps),
    listRegistry: createRegistryListing(deps),
    settings: createRegistrySettings(deps),
    jobs: { get: jobs.get },
    /** Starts `agent_source_publish` in the background; follow it with `jobs.get`. */
    async startPublish(actor: Actor, extensionId: string, options: { destination: 'public' | 'private'; bump: VersionBump }) {
      assertMayAuthor(actor);
      const extension = await extensionFor(extensionId);
      return jobs.start(actor, { extensionId, packageName: extension.packageName, operation: 'publish', destination: options.destination }, (progress) =>
        sources.publish(actor, extensionId, options, progress),
      );
    },
    /**
     * The shipped example agents, compiled into this instance's scope and published to its private
     * destination, one job each, one after another (an agent is published after those it calls).
     * Resolves with the job ids at once; the jobs run in the background. An example already
     * published as shipped starts no job (`jobId: null`, with the version the registry holds).
     */
    async publishExamples(actor: Actor): Promise<{ jobs: { packageName: string; jobId: string | null; version?: string }[] }> {
      assertMayAuthor(actor);
      await deps.resolver.forPublish(actor, 'private');
      const started: { packageName: string; jobId: string | null; version?: string }[] = [];
      const compiled = [];
      for (const name of listExamples()) {
        const source = loadExample(name, deps.identity.vendorScope);
        const existing = await deps.reader.getByPackageName((source.manifest as { name: string }).name);
        if (existing?.status === 'published' && sameSource(existing.source as AgentSource, source)) started.push({ packageName: existing.packageName, jobId: null, version: existing.version });
        else compiled.push(await sources.compile(actor, source));
      }
      compiled.sort((a, b) => Object.keys(a.compiled.agentDependencies ?? {}).length - Object.keys(b.compiled.agentDependencies ?? {}).length);
      let previous: Promise<void> = Promise.resolve();
      for (const extension of compiled) {
        const after = previous;
        let finished!: () => void;
        previous = new Promise<void>((resolve) => (finished = resolve));
        const { jobId } = await jobs.start(actor, { extensionId: extension.id, packageName: extension.packageName, operation: 'publish', destination: 'private' }, async (progress) => {
          await after;
          try {
            return await sources.publish(actor, extension.id, { destination: 'private', bump: 'patch' }, progress);
          } finally {
            finished();
          }
        });
        started.push({ packageName: extension.packageName, jobId });
      }
      return { jobs: started };
    },
    /** Starts a promotion in the background; refusals, including a missing public token, are thrown at once. */
    async startPromote(actor: Actor, extensionId: string) {
      const extension = await promotable(actor, extensionId);
      await deps.resolver.forPublish(actor, 'public');
      return jobs.start(actor, { extensionId, packageName: extension.packageName, operation: 'promote', destination: 'public' }, (progress) =>
        promote(actor, extensionId, progress),
      );
    },
    /** For operators and the baseline fixture; never exposes tokens. */
    destinations: { put: destinations.put, summary: destinations.summary },
  };
}

export type RegistryService = ReturnType<typeof createRegistryService>;
export { topologyFlags } from './topology.ts';
export { createPublishJobs, type PublishJobs } from './publish-jobs.ts';
export { packSource, type PackedTarball } from './pack.ts';
export { npmrcAuthKey, withTemporaryNpmrc } from './npmrc.ts';
export { createNpmRunner, type NpmRunner, type NpmRunOptions } from './npm-cli.ts';
export { tokenLabel, type TokenChange, type DestinationSummary } from './destination-store.ts';
export { applyBaselineRegistryFixture } from './baseline-fixture.ts';
export {
  DeploymentRegistryConfigNotAvailableError,
  PublicRegistryResolverNotWiredError,
  PrivateDestinationNotConfiguredError,
  ROUTING_MODE_MISSING,
  PUBLIC_RESOLVER_NOT_WIRED,
} from './errors.ts';
export { PUBLISH_STEPS, assertMayAuthor, type VersionBump, type PublishStepId } from './source-operations.ts';
export type { PublishJobView } from './publish-jobs.ts';
export type { RegistrySettings, RegistrySettingsInput } from './settings.ts';
export type { RegistryListingItem } from './listing.ts';
export type { DestinationName } from './resolver.ts';
export type { RoutingMode, DeploymentRegistryConfig } from './config-types.ts';
