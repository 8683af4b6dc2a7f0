import type { Services } from '../services.ts';

/**
 * Background work of a serving process: continuing runs whose worker died. Every web process
 * may run it; leases make sure each orphaned run is picked up by exactly one.
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
  return () => clearInterval(timer);
}
