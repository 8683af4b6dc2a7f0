import { createClaims } from '../db/index.ts';
import type { Services } from '../services.ts';

/**
 * Background work of a serving process: continuing runs whose worker died, and syncing
 * auto-updating imports. Every web process may run it; leases make sure each orphaned run and
 * each due import is taken by exactly one.
 */
export function startBackgroundWork(services: Services, options: { recoveryIntervalMs?: number } = {}): () => void {
  let running = false;
  const tick = async () => {
    if (running) return;
    running = true;
    try {
      const recovered = [...(await services.executor.recoverOrphans()), ...(await services.remote.recoverOrphans())];
      if (recovered.length) services.logger.info(`continuing ${recovered.length} run(s) whose worker stopped`, { runIds: recovered });
    } catch (error) {
      services.logger.warn('run recovery pass failed', { error });
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void tick(), options.recoveryIntervalMs ?? 1_000);
  void tick();
  const stopSync = services.config.imports.syncEnabled ? startImportSync(services) : () => {};
  const claims = createClaims(services.database.models);
  const sweep = () => {
    void services.imports.jobs.failInterrupted().then(
      (count) => count && services.logger.warn(`marked ${count} interrupted import job(s) failed`),
      (error: unknown) => services.logger.warn('could not sweep interrupted import jobs', { error }),
    );
    // Claims decide races that are over within minutes; a day keeps them well past that.
    void claims.forgetOlderThan(24 * 3_600_000).catch((error: unknown) => services.logger.warn('could not drop old claims', { error }));
  };
  const sweeper = setInterval(sweep, 60_000);
  sweep();
  return () => {
    clearInterval(timer);
    clearInterval(sweeper);
    stopSync();
  };
}

/**
 * Checks auto-updating GitHub imports. Polls a few times per interval so a due import is picked
 * up soon after it falls due; the claim in the sync makes each check run in one process only.
 */
function startImportSync(services: Services): () => void {
  let running = false;
  const tick = async () => {
    if (running) return;
    running = true;
    try {
      const results = await services.imports.syncDue();
      const changed = results.filter((r) => r.outcome !== 'unchanged');
      if (changed.length) services.logger.info(`import sync: ${changed.map((r) => `${r.extensionId} ${r.outcome}`).join(', ')}`);
    } catch (error) {
      services.logger.warn('import sync pass failed', { error });
    } finally {
      running = false;
    }
  };
  const every = Math.max(100, Math.min(30_000, Math.floor(services.config.imports.syncIntervalMs / 4)));
  const timer = setInterval(() => void tick(), every);
  return () => clearInterval(timer);
}
