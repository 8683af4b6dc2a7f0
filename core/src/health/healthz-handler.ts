import { json } from '../http/index.ts';
import type { Database } from '../db/index.ts';

/**
 * `GET /healthz`: 200 when the database answers a ping and this process's last write did not
 * fail for lack of disk space; 503 `degraded` otherwise, the storage check saying why.
 */
export function createHealthzHandler(deps: { database: Database; version: string }) {
  return async (_request: Request): Promise<Response> => {
    const started = Date.now();
    const up = await deps.database.ping();
    const latencyMs = Date.now() - started;
    const full = deps.database.storageFailure();
    const healthy = up && !full;
    const storage = full ? { storage: { status: 'full', reason: full.reason, since: full.at } } : {};
    return json({ status: healthy ? 'ok' : 'degraded', version: deps.version, checks: { database: { status: up ? 'up' : 'down', latencyMs, ...storage } } }, { status: healthy ? 200 : 503 });
  };
}
