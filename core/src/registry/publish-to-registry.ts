import path from 'node:path';
import { startCheckedProxy, type OutboundHttp } from '../http/index.ts';
import type { NpmRunner } from './npm-cli.ts';
import { withTemporaryNpmrc } from './npmrc.ts';
import type { ResolvedDestination } from './resolver.ts';
import { topologyFlags } from './topology.ts';

/**
 * Step 5 of the publish flow once the destination is resolved: the topology adapter builds the
 * registry flags, the token goes into a temporary npmrc, and `npm publish <tarball>` runs. npm
 * makes its own connections, so they all go through a checked proxy: each is resolved once,
 * checked against the outbound policy and connected to that address (the registry's address is
 * also checked before npm starts, for a plain refusal without spawning it).
 */
export async function publishTarball(deps: { npm: NpmRunner; http: OutboundHttp }, destination: ResolvedDestination & { token: string }, tarball: string, scope: string): Promise<void> {
  const { npm } = deps;
  await deps.http.assertAllowed(destination.registryUrl);
  const proxy = await startCheckedProxy(deps.http);
  try {
    await withTemporaryNpmrc(destination.registryUrl, destination.token, (userconfig) =>
      npm.run(['publish', tarball, ...topologyFlags(destination.routingMode, { scope, registryUrl: destination.registryUrl }), '--tag', 'latest'], {
        cwd: path.dirname(tarball),
        userconfig,
        proxy: proxy.url,
      }),
    );
  } catch (error) {
    // npm reports a refused connection as a failed request; the refusal says which rule.
    throw proxy.refusals[0] ?? error;
  } finally {
    await proxy.close();
  }
}
