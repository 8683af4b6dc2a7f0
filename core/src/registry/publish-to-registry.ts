import path from 'node:path';
import type { NpmRunner } from './npm-cli.ts';
import { withTemporaryNpmrc } from './npmrc.ts';
import type { ResolvedDestination } from './resolver.ts';
import { topologyFlags } from './topology.ts';

/**
 * Step 5 of the publish flow once the destination is resolved: the topology adapter builds the
 * registry flags, the token goes into a temporary npmrc, and `npm publish <tarball>` runs.
 */
export async function publishTarball(npm: NpmRunner, destination: ResolvedDestination & { token: string }, tarball: string, scope: string): Promise<void> {
  await withTemporaryNpmrc(destination.registryUrl, destination.token, (userconfig) =>
    npm.run(['publish', tarball, ...topologyFlags(destination.routingMode, { scope, registryUrl: destination.registryUrl }), '--tag', 'latest'], {
      cwd: path.dirname(tarball),
      userconfig,
    }),
  );
}
