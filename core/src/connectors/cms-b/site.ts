import { DomainError } from '../../errors/index.ts';
import type { OutboundHttp } from '../../http/index.ts';
import type { ConnectorInstances, ConnectorInstanceView } from '../instances.ts';
import { createCmsBClient, type CmsBClient } from './client.ts';

export const CMS_B = 'cms_b';

/** Tells the site something happened to its content (wired to signed notifications). */
export type SiteEvents = (instanceId: string, type: string, data: Record<string, unknown>) => void;

/** What reaching a configured site takes: its stored instance and the outbound HTTP client. */
export interface SiteAccess {
  instances: ConnectorInstances;
  http: OutboundHttp;
}

/** A client for one configured instance, its application password opened for this call (its writes keyed with `idempotencyKey`, when given). */
export async function cmsBClientFor(deps: SiteAccess, id: string, idempotencyKey?: string): Promise<CmsBClient> {
  return cmsBClientOf(await deps.instances.withCredential(CMS_B, id), deps.http, idempotencyKey);
}

export function cmsBClientOf(instance: ConnectorInstanceView & { credential: string }, http: OutboundHttp, idempotencyKey?: string): CmsBClient {
  if (!instance.username) throw new DomainError('VALIDATION_FAILED', `WordPress instance ${instance.id} has no username`);
  return createCmsBClient({ siteUrl: instance.siteUrl, username: instance.username, applicationPassword: instance.credential }, http, idempotencyKey ? { idempotencyKey } : {});
}
