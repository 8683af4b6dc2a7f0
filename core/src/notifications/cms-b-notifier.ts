import { createHmac, randomUUID } from 'node:crypto';
import type { ConnectorInstances } from '../connectors/index.ts';
import { DomainError } from '../errors/index.ts';
import type { OutboundHttp } from '../http/index.ts';
import type { Logger } from '../log/index.ts';

export interface Notification {
  id: string;
  type: string;
  data: Record<string, unknown>;
}

/**
 * Notifies a CMS-B site: POST `<site>/wp-json/service/v1/receive` with
 * `X-Service-Timestamp` and `X-Service-Signature` (hex HMAC-SHA256 of `<timestamp>.<body>` with
 * the instance's webhook secret). Server errors and network failures are retried with
 * exponential backoff (each retry signs afresh; the event id stays, so the plugin drops
 * duplicates); a 4xx is final.
 */
export function createCmsBNotifier(deps: { instances: ConnectorInstances; http: OutboundHttp; logger: Logger; attempts?: number; baseDelayMs?: number }) {
  const attempts = deps.attempts ?? 4;
  const baseDelay = deps.baseDelayMs ?? 500;
  /** `subscribedOnly`: an instance without a webhook secret is skipped (null) instead of refused. */
  async function deliver(instanceId: string, type: string, data: Record<string, unknown>, subscribedOnly: boolean): Promise<{ id: string; attempts: number } | null> {
    if (!/^[a-z][a-z0-9_.]{1,63}$/.test(type)) throw new DomainError('VALIDATION_FAILED', `event type "${type}" must be lowercase dotted words`);
    const target = await deps.instances.webhookSecret('cms_b', instanceId);
    if (!target) {
      if (subscribedOnly) return null;
      throw new DomainError('NOT_FOUND', `WordPress instance ${instanceId} has no webhook secret`);
    }
    const event: Notification = { id: randomUUID(), type, data };
    const body = JSON.stringify(event);
    for (let attempt = 1; ; attempt++) {
      const timestamp = String(Math.floor(Date.now() / 1000));
      const signature = createHmac('sha256', target.secret).update(`${timestamp}.${body}`).digest('hex');
      let status = 0;
      try {
        const response = await deps.http.fetch(`${target.siteUrl}/wp-json/service/v1/receive`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-service-timestamp': timestamp, 'x-service-signature': signature },
          body,
          // A site that hangs counts as a failed attempt, so a delivery always ends.
          timeoutMs: 10_000,
        });
        status = response.status;
        await response.body?.cancel().catch(() => undefined);
      } catch (error) {
        // Refused by the outbound policy: no attempt will do better. Unreachable or slow: retried.
        if (error instanceof DomainError && error.code === 'OUTBOUND_REFUSED') throw error;
      }
      // 409: the plugin already has this event (an earlier attempt got through).
      if ((status >= 200 && status < 300) || status === 409) return { id: event.id, attempts: attempt };
      if (status >= 300 && status < 500) throw new DomainError('UPSTREAM_FAILED', `WordPress refused the notification (${status})`);
      if (attempt >= attempts) throw new DomainError('UPSTREAM_FAILED', `WordPress did not take the notification after ${attempts} attempts (last: ${status || 'network error'})`);
      deps.logger.warn('notification failed, retrying', { instanceId, type, attempt, status });
      await new Promise((resolve) => setTimeout(resolve, baseDelay * 2 ** (attempt - 1)));
    }
  }
  const notify = async (instanceId: string, type: string, data: Record<string, unknown>) => (await deliver(instanceId, type, data, false))!;
  return Object.assign(notify, { ifSubscribed: (instanceId: string, type: string, data: Record<string, unknown>) => deliver(instanceId, type, data, true) });
}

/**
 * Built-in events for CMS-B sites, fire-and-forget: sent only to instances with a webhook
 * secret (the site subscribed by configuring one), retried by the notifier, never failing the
 * work that raised them; a notification that could not be delivered is logged.
 */
export function createCmsBEvents(deps: { notify: ReturnType<typeof createCmsBNotifier>; logger: Logger }) {
  const pending = new Set<Promise<unknown>>();
  function emit(instanceId: string, type: string, data: Record<string, unknown>): void {
    const delivery = deps.notify
      .ifSubscribed(instanceId, type, data)
      .catch((error: unknown) => deps.logger.warn('CMS-B notification not delivered', { instanceId, type, error }))
      .finally(() => pending.delete(delivery));
    pending.add(delivery);
  }
  /** Resolves when every notification started so far has been delivered or given up (shutdown, tests). */
  const flush = async () => {
    await Promise.all([...pending]);
  };
  return Object.assign(emit, { flush });
}
