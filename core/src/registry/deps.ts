import type { AuditLog } from '../audit/index.ts';
import type { Models } from '../db/index.ts';
import type { ExtensionReader, ExtensionWriter } from '../extensions/index.ts';
import type { OutboundHttp } from '../http/index.ts';
import type { Logger } from '../log/index.ts';
import type { DestinationStore } from './destination-store.ts';
import type { NpmRunner } from './npm-cli.ts';
import type { DestinationResolver } from './resolver.ts';

export interface RegistryDeps {
  models: Models;
  identity: { vendorScope: string };
  reader: ExtensionReader;
  writer: ExtensionWriter;
  destinations: DestinationStore;
  resolver: DestinationResolver;
  npm: NpmRunner;
  /** Registry reads, and the check of a registry's address before npm is run against it. */
  http: OutboundHttp;
  /**
   * The embedded registry's origin while the destinations point at it (settings.useEmbedded),
   * else empty: `http` reaches exactly this origin on loopback whatever SERVICE_OUTBOUND_ALLOW_PRIVATE says.
   */
  embeddedOrigins: Set<string>;
  audit: AuditLog;
  logger: Logger;
}
