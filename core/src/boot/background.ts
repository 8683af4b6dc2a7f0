import { createClaims } from '../db/index.ts';
import type { Logger } from '../log/index.ts';
import type { Services } from '../index.ts';

/**
 * Runs `work` every `intervalMs` (and once at once when `immediately`), never two passes at a
 * time; a failed pass is logged as `failure` and the next one runs as usual.
 */
function repeat(logger: Logger, failure: string, intervalMs: number, work: () => Promise<void>, options: { immediately?: boolean } = {}): () => void {
  let running = false;
  const pass = async () => {
    if (running) return;
    running = true;
    try {
      await work();
    } catch (error) {
      logger.warn(failure, { error });
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void pass(), intervalMs);
  if (options.immediately) void pass();
  return () => clearInterval(timer);
}

/**
 * Background work of a serving process: continuing runs whose worker died, sending A2A push
 * notifications, syncing auto-updating imports, and sweeping interrupted import jobs and old claims. Every web process
 * may run it; leases and claims make sure each orphaned run and each due import is taken by
 * exactly one.
 */
export function startBackgroundWork(services: Services, options: { recoveryIntervalMs?: number; pushIntervalMs?: number } = {}): () => void {
  const { logger } = services;
  const claims = createClaims(services.database.models);
  const stops = [
    repeat(logger, 'run recovery pass failed', options.recoveryIntervalMs ?? 1_000, async () => {
      const recovered = [...(await services.executor.recoverOrphans()), ...(await services.remote.recoverOrphans())];
      if (recovered.length) logger.info(`continuing ${recovered.length} run(s) whose worker stopped`, { runIds: recovered });
    }, { immediately: true }),
    // A2A push notifications: enqueue new events of tasks with push configs, send what is due (ADR 0033).
    repeat(logger, 'push notification pass failed', options.pushIntervalMs ?? 500, async () => {
      await services.push.dispatcher.pass();
    }),
    repeat(logger, 'background sweep failed', 60_000, async () => {
      await Promise.all([
        services.imports.jobs.failInterrupted().then((count) => count && logger.warn(`marked ${count} interrupted import job(s) failed`)),
        // Claims decide races that are over within minutes; a day keeps them well past that.
        claims.forgetOlderThan(24 * 3_600_000),
        // Where the server has TTL indexes it deletes expired keys itself; elsewhere this does.
        services.runs.forgetExpiredKeys(),
        services.widgetEdits.forgetExpired(),
        services.windowCounters.forgetExpired(),
        services.retention.sweep().then((swept) => {
          if (swept.runs + swept.audit + swept.jobs > 0) logger.info(`retention: deleted ${swept.runs} run(s) with ${swept.events} event(s), ${swept.audit} audit row(s), ${swept.jobs} job row(s)`);
        }),
      ]);
    }, { immediately: true }),
  ];
  if (services.config.imports.syncEnabled) {
    // Polls a few times per interval so a due import is picked up soon after it falls due; the
    // claim in the sync makes each check run in one process only.
    const every = Math.max(100, Math.min(30_000, Math.floor(services.config.imports.syncIntervalMs / 4)));
    stops.push(repeat(logger, 'import sync pass failed', every, async () => {
      const changed = (await services.imports.syncDue()).filter((r) => r.outcome !== 'unchanged');
      if (changed.length) logger.info(`import sync: ${changed.map((r) => `${r.extensionId} ${r.outcome}`).join(', ')}`);
    }));
  }
  return () => stops.forEach((stop) => stop());
}
