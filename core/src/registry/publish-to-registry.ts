import path from 'node:path';
import type { OutboundHttp } from '../http/index.ts';
import type { NpmRunner } from './npm-cli.ts';
import { withTemporaryNpmrc } from './npmrc.ts';
import type { ResolvedDestination } from './resolver.ts';
import { topologyFlags } from './topology.ts';

/**
 * Step 5 of the publish flow once the destination is resolved: the topology adapter builds the
 * registry flags, the token goes into a temporary npmrc, and `npm publish <tarball>` runs. npm
 * makes its own connections, so the registry's address is checked against the outbound policy first.
 */
export async function publishTarball(deps: { npm: NpmRunner; http: OutboundHttp }, destination: ResolvedDestination & { token: string }, tarball: string, scope: string): Promise<void> {
  const { npm } = deps;
  await deps.http.assertAllowed(destination.registryUrl);
  await withTemporaryNpmrc(destination.registryUrl, destination.token, (userconfig) =>
    npm.run(['publish', tarball, ...topologyFlags(destination.routingMode, { scope, registryUrl: destination.registryUrl }), '--tag', 'latest'], {
      cwd: path.dirname(tarball),
      userconfig,
    }),
  );
}
